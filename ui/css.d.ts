// The dashboard's style sheets, imported for their side effect: esbuild bundles them (scripts/build-dashboard.js).
declare module '*.css';
