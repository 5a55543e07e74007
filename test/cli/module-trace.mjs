// Loaded with `--import` before a CLI run: records every package the run resolves (ES modules and
// CommonJS alike, through a module resolve hook) and prints them on stderr as `PKG <name>` lines.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
    import { writeSync } from 'node:fs';
    const seen = new Set();
    export async function resolve(specifier, context, next) {
      const r = await next(specifier, context);
      const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(r.url);
      if (m && !seen.has(m[1])) { seen.add(m[1]); writeSync(2, 'PKG ' + m[1] + '\\n'); }
      return r;
    }`)}`,
);
