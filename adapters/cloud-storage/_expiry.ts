// Pastebin's expiry codes as seconds. Months are fixed lengths, not calendar months: 1M is 30 days,
// 6M 182 days and 1Y 365 days, so an expiry never depends on the month a paste was made in.
export const PASTE_EXPIRY: Record<string, number | null> = {
  N: null,
  '10M': 600,
  '1H': 3_600,
  '1D': 86_400,
  '1W': 604_800,
  '2W': 1_209_600,
  '1M': 30 * 86_400,
  '6M': 182 * 86_400,
  '1Y': 365 * 86_400,
};
