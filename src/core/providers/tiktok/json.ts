/**
 * Parses JSON like `JSON.parse`, except that integer literals longer than 15 digits become strings.
 * TikTok sends post ids as bare 19-digit numbers (contract 4.6, P-1984), which `JSON.parse` would
 * round; Node 20 has no reviver `context.source`, so the text is rewritten before parsing. Every
 * such literal is quoted, whatever its field: no count or size TikTok sends comes near 10^15, and
 * the schemas accept ids as either strings or numbers.
 */
export function parseJsonKeepingBigInts(text: string): unknown {
  return JSON.parse(quoteLongIntegers(text)) as unknown;
}

// A JSON number literal at the start of the text: integer part, optional fraction, optional exponent.
const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/;

/** The rewriting step of parseJsonKeepingBigInts, exported for its unit test. */
export function quoteLongIntegers(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? '';
    if (char === '"') {
      // Copy a string literal whole, honouring escapes, so digits inside strings are never touched.
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += text.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    const number = char === '-' || (char >= '0' && char <= '9') ? NUMBER.exec(text.slice(i, i + 400)) : null;
    if (number) {
      const literal = number[0];
      const isLongInteger = number[1] === undefined && number[2] === undefined && literal.replace('-', '').length > 15;
      out += isLongInteger ? `"${literal}"` : literal;
      i += literal.length;
      continue;
    }
    out += char;
    i += 1;
  }
  return out;
}
