import { writeFileSync } from 'node:fs';

export interface MadePdf {
  /** The one line of text on its page (plain ASCII without parentheses or backslashes). */
  text: string;
  /** A fillable text field on the page (an AcroForm widget): a reader that parses the file lists it. */
  field?: { name: string; label: string };
}

/**
 * Writes a one-page PDF byte by byte: header, objects, a cross-reference table with their exact
 * offsets and the trailer — a file PDF.js and any reader open. Returns its size in bytes.
 */
export function writeOnePagePdf(file: string, pdf: MadePdf): number {
  const words = [pdf.text, pdf.field?.name ?? '', pdf.field?.label ?? ''].join('');
  if (!/^[\x20-\x7e]*$/.test(words) || /[()\\]/.test(words)) throw new Error('plain ASCII without ( ) \\ only');
  const stream = `BT /F1 18 Tf 72 720 Td (${pdf.text}) Tj ET`;
  const field = pdf.field;
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R${field ? ' /AcroForm << /Fields [6 0 R] /DA (/Helv 0 Tf 0 g) >>' : ''} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R${field ? ' /Annots [6 0 R]' : ''} >>`,
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...(field ? [`<< /Type /Annot /Subtype /Widget /FT /Tx /T (${field.name}) /TU (${field.label}) /Rect [72 600 300 624] /P 3 0 R /F 4 /DA (/Helv 12 Tf 0 g) >>`] : []),
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  writeFileSync(file, out, 'latin1');
  return out.length;
}
