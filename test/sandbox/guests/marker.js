// Freshness probe (componentize-js): reports what an earlier call could have left in the JS
// heap (which lives in the engine's linear memory), then leaves it behind.
let calls = 0;

export const run = {
  run() {
    calls++;
    const seen = { calls, marker: globalThis.__boxbotMarker ?? null, cached: typeof globalThis.__boxbotCache };
    globalThis.__boxbotMarker = 'left by an earlier call';
    globalThis.__boxbotCache = new Array(64).fill('stale');
    console.log(JSON.stringify(seen));
  },
};
