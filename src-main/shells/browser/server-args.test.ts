import { describe, expect, it } from 'vitest';
import { ArgsError, parseServerArgs } from './server-args';

describe('server command line', () => {
  it('defaults to the remembered port, the default data folder and opening a browser', () => {
    expect(parseServerArgs([])).toEqual({ port: undefined, dataDir: undefined, open: true, printUrlJson: false, help: false });
  });

  it('reads --port, --data-dir and --no-open, in either spelling', () => {
    expect(parseServerArgs(['--port', '4321', '--data-dir', '/tmp/s', '--no-open'])).toEqual({
      port: 4321,
      dataDir: '/tmp/s',
      open: false,
      printUrlJson: false,
      help: false,
    });
    expect(parseServerArgs(['--port=80', '--data-dir=/x'])).toMatchObject({ port: 80, dataDir: '/x' });
  });

  it('--print-url-json never opens a browser', () => {
    expect(parseServerArgs(['--print-url-json'])).toMatchObject({ printUrlJson: true, open: false });
  });

  it.each([[['--port']], [['--port', 'abc']], [['--port', '70000']], [['--port', '-1']], [['--port', '1.5']], [['--data-dir']], [['--nope']], [['stray']]])(
    'refuses %j',
    (argv) => {
      expect(() => parseServerArgs(argv)).toThrow(ArgsError);
    },
  );
});
