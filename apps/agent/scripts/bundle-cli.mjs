// Bundles the CLI's TypeScript (this package and the workspace packages it uses) into one ES
// module, dist/kneeboard.mjs, so `kneeboard` starts without tsx: tsx's loader thread and its
// per-file transpiling cost ~70 MiB of resident memory and ~1 s of start-up in every agent, which
// on a load host is memory the native engine's 10,000 connections should have.
// Packages from npm stay external (resolved from this package's node_modules at run time).
// esbuild's input list is written beside the bundle, so bin/kneeboard.mjs can tell a stale bundle
// (a source edited since) and fall back to the TypeScript.
//   node scripts/bundle-cli.mjs [out-dir, default dist]   (out-dir must be inside this package,
//   so the bundle finds its npm packages and the engine as the source does)
import { build } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { dependencies } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
const fromNpm = Object.keys(dependencies).filter((name) => !name.startsWith('@kneeboard/'));

const outDir = resolve(root, process.argv[2] ?? 'dist');
const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts'],
  outfile: resolve(outDir, 'kneeboard.mjs'),
  // Written below, each file whole under its final name: a CLI started meanwhile never reads half.
  write: false,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: fromNpm.flatMap((name) => [name, `${name}/*`]),
  // Workspace packages' own npm dependencies are bundled; some are CommonJS that call require().
  banner: { js: "import { createRequire as kneeboardCreateRequire } from 'node:module'; const require = kneeboardCreateRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
});
mkdirSync(outDir, { recursive: true });
const writeWhole = (path, contents) => {
  writeFileSync(`${path}.${process.pid}.tmp`, contents);
  renameSync(`${path}.${process.pid}.tmp`, path);
};
const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(root, input));
// The input list first: a bundle is only ever newer than the list it was built from.
writeWhole(resolve(outDir, 'kneeboard.inputs.json'), `${JSON.stringify(inputs)}\n`);
for (const file of result.outputFiles) writeWhole(file.path, file.contents);
console.log(`bundled the kneeboard CLI: ${inputs.length} files → ${outDir}/kneeboard.mjs`);
