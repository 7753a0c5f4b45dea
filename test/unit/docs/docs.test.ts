import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..', '..');

function* files(dir: string, ext: RegExp): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (['node_modules', 'dist', '.data', 'generated', '.git'].includes(name)) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) yield* files(full, ext);
    else if (ext.test(name)) yield full;
  }
}

const markdown = [join(root, 'README.md'), ...files(join(root, 'docs'), /\.md$/)];

it('resolves every relative link of the README and docs/ to a file in the repository', () => {
  const broken: string[] = [];
  for (const file of markdown) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      if (!existsSync(resolve(dirname(file), target.split('#')[0]!))) broken.push(`${relative(root, file)}: ${target}`);
    }
  }
  expect(broken).toEqual([]);
});

it('refers to no document outside the repository (the repository stands alone)', () => {
  const outside = /DESIGN\.md|STYLE\.md|STACK\.md|(^|[\s(`'"])shared\/|service-spec|spec\/service/;
  const hits: string[] = [];
  for (const file of [...markdown, ...files(join(root, 'src'), /\.ts$/), ...files(join(root, 'test'), /\.ts$/), ...files(join(root, 'scripts'), /\.js$/)]) {
    if (file === __filename) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (outside.test(line)) hits.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  expect(hits).toEqual([]);
});
