/**
 * Text folding shared by every care lookup (catalogue, products, residue analytes), so a label
 * read by OCR, a farmer's typing and the catalogue's spellings meet in one form: lower case,
 * Vietnamese diacritics removed (đ → d), everything that is not a letter or digit a single space.
 * "Thuốc trừ sâu CACBOFURAN 3%" and "thuoc tru sau cacbofuran 3" fold to the same tokens.
 */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Folded tokens of `text`. */
export function tokens(text: string): string[] {
  const f = fold(text);
  return f ? f.split(' ') : [];
}

/** Levenshtein distance, stopping early once it exceeds `max` (returns max + 1 then). */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(i);
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, cur[j]!);
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Errors tolerated when a folded term is compared with OCR'd text: none for short terms (too
 * many real words lie one letter away from "DDT" or "2,4-D"), one for 7+ letters, two for 12+.
 */
export function tolerance(term: string): number {
  const letters = term.replace(/ /g, '').length;
  return letters >= 12 ? 2 : letters >= 7 ? 1 : 0;
}

/**
 * Whether the folded `term` occurs in the token list as a whole-token sequence, exactly or
 * within `tolerance(term)` edits (OCR drops or confuses a letter; spacing is ignored for the
 * comparison so "carbo furan" still finds "carbofuran"). Returns the matched span or null.
 */
export function findTerm(textTokens: string[], term: string): string | null {
  const termTokens = term.split(' ');
  const n = termTokens.length;
  const flat = term.replace(/ /g, '');
  const tol = tolerance(term);
  for (let i = 0; i + n <= textTokens.length; i++) {
    const span = textTokens.slice(i, i + n);
    if (span.join(' ') === term) return term;
    if (tol > 0 && editDistance(span.join(''), flat, tol) <= tol) return span.join(' ');
  }
  // A term split or glued differently by OCR: compare against n-1 and n+1 token windows too.
  if (tol > 0) {
    for (const w of [n - 1, n + 1]) {
      if (w < 1) continue;
      for (let i = 0; i + w <= textTokens.length; i++) {
        const joined = textTokens.slice(i, i + w).join('');
        if (editDistance(joined, flat, tol) <= tol) return textTokens.slice(i, i + w).join(' ');
      }
    }
  }
  return null;
}
