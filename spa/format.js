// Numbers as a person reads them: latencies, waits, token counts, costs, moments.

export function formatMs(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '–';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

export function formatTokens(count) {
  return typeof count === 'number' && Number.isFinite(count) ? Math.round(count).toLocaleString('en-US') : '–';
}

/** A cost in US dollars; `null` means the model has no known price, which is not the same as free. */
export function formatCost(usd) {
  if (usd === null || usd === undefined) return 'price unknown';
  if (typeof usd !== 'number' || !Number.isFinite(usd)) return '–';
  if (usd === 0) return '$0.00';
  if (usd < 0.000001) return '< $0.000001';
  if (usd < 0.01) return `$${usd.toFixed(6).replace(/0+$/, '')}`;
  return `$${usd.toFixed(2)}`;
}

/** An RFC 3339 moment as `YYYY-MM-DD HH:MM UTC`, the same for every reader; '–' when it is not one. */
export function formatMoment(iso) {
  const date = new Date(typeof iso === 'string' ? iso : Number.NaN);
  if (Number.isNaN(date.getTime())) return '–';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
