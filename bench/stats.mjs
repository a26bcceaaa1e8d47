// The benches' statistics, one definition each.

/**
 * The value at quantile `q` (0 to 1) of `values`: the one `q` of the way up the sorted
 * list, the higher of two for the median of an even count; 0 for no values.
 * @param {number[]} values
 * @param {number} q
 * @returns {number}
 */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/**
 * The median of `values` (see `quantile`).
 * @param {number[]} values
 * @returns {number}
 */
export function median(values) {
  return quantile(values, 0.5);
}
