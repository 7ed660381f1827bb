import { useEffect, useState } from 'react';

/** A voice of this browser's speech synthesis, as the Synthesis group lists it. */
export interface BrowserVoice {
  name: string;
  lang: string;
  isDefault: boolean;
}

/** This browser's speech synthesis, or undefined where there is none (an old or stripped-down browser). */
export function browserSpeech(): SpeechSynthesis | undefined {
  return typeof window !== 'undefined' && 'speechSynthesis' in window ? window.speechSynthesis : undefined;
}

/**
 * The browser's voices (`speechSynthesis.getVoices()`), kept current: many browsers load them after
 * the page and say so with `voiceschanged`. `undefined`: this browser cannot speak at all.
 */
export function useBrowserVoices(): BrowserVoice[] | undefined {
  const speech = browserSpeech();
  const [voices, setVoices] = useState<BrowserVoice[] | undefined>(() => voicesOf(speech));
  useEffect(() => {
    if (!speech) return undefined;
    const update = () => setVoices(voicesOf(speech));
    update();
    speech.addEventListener('voiceschanged', update);
    return () => speech.removeEventListener('voiceschanged', update);
  }, [speech]);
  return voices;
}

function voicesOf(speech: SpeechSynthesis | undefined): BrowserVoice[] | undefined {
  return speech?.getVoices().map((v) => ({ name: v.name, lang: v.lang, isDefault: v.default }));
}
