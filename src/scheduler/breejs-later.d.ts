// @breejs/later ships no types; cron.ts describes the part it uses (its Later interface).
declare module '@breejs/later' {
  const later: unknown;
  export default later;
}
