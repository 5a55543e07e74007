// Bundles the dashboard (ui/admin: Preact, htm, uPlot) into dist/admin/app.js and app.css with
// esbuild: no CDN at run time, nothing inline. Run by `npm run build` and `prepare`; the browser
// tests call it when the bundle is missing. Written to a temporary folder, then renamed into
// place, so a reader (or a second build at the same time) never sees half a bundle.
// Example: node scripts/build-dashboard.js [--out DIR]
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds the bundle into `out` (default dist/admin). */
export async function buildDashboard(out = join(root, 'dist', 'admin')) {
  const { build } = await import('esbuild');
  const tmp = `${out}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { recursive: true });
  try {
    await build({
      entryPoints: { app: join(root, 'ui', 'admin', 'app.ts') },
      bundle: true,
      format: 'esm',
      target: 'es2020',
      minify: true,
      legalComments: 'linked',
      outdir: tmp,
      logLevel: 'warning',
    });
    rmSync(out, { recursive: true, force: true });
    renameSync(tmp, out);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--out');
  const out = await buildDashboard(i > 0 ? resolve(process.argv[i + 1]) : undefined);
  console.log(`boxbot: dashboard built into ${out}`);
}
