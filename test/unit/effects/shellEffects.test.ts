// Table-driven: the files a shell command line writes, deletes, renames and reads, read from its text (every form agents use, and negatives).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shellEffects } from '../../../src/engine/effects/shellEffects.js';

interface Row {
  readonly cmd: string;
  readonly created?: readonly string[];
  readonly modified?: readonly string[];
  readonly deleted?: readonly string[];
  readonly renamed?: readonly (readonly [string, string])[];
  readonly read?: readonly string[];
}

const ROWS: readonly Row[] = [
  { cmd: "sed -i 's/a/b/' src/x.py", modified: ['src/x.py'] },
  { cmd: "sed -i.bak -e 's/a/b/' -e 's/c/d/' a.txt b.txt", modified: ['a.txt', 'b.txt'] },
  { cmd: "sed -n '10,20p' django/db/models.py", read: ['django/db/models.py'] },
  { cmd: "perl -pi -e 's/foo/bar/g' lib/a.pm", modified: ['lib/a.pm'] },
  { cmd: "perl -i -pe 's/x/y/' t.txt", modified: ['t.txt'] },
  { cmd: "cat > src/new.py <<'EOF'\nprint('>> not a redirect')\nrm -rf /\nEOF", modified: ['src/new.py'] },
  { cmd: 'cat <<EOF > conf.ini\n[a]\nEOF\necho done', modified: ['conf.ini'] },
  { cmd: 'echo hi > out.txt', modified: ['out.txt'] },
  { cmd: 'echo hi >> log.txt 2>&1', modified: ['log.txt'] },
  { cmd: 'make 2> err.log >/dev/null', modified: ['err.log'] },
  { cmd: 'npm test 2>&1 | tee test.log', modified: ['test.log'] },
  { cmd: 'tee -a a.txt b.txt < input', modified: ['a.txt', 'b.txt'] },
  { cmd: 'cp src/a.ts src/b.ts', modified: ['src/b.ts'], read: ['src/a.ts'] },
  { cmd: 'cp a.txt b.txt dest/', modified: ['dest/a.txt', 'dest/b.txt'], read: ['a.txt', 'b.txt'] },
  // A backup copy shows the agent nothing of the file: not a read.
  { cmd: 'cp src/a.ts src/a.ts.bak', modified: ['src/a.ts.bak'], read: [] },
  { cmd: 'cp -p config.yml config.yml.orig', modified: ['config.yml.orig'], read: [] },
  { cmd: 'mv old.py new.py', renamed: [['old.py', 'new.py']] },
  { cmd: 'mv a.ts lib/', renamed: [['a.ts', 'lib/a.ts']] },
  { cmd: 'git mv x.md docs/x.md', renamed: [['x.md', 'docs/x.md']] },
  { cmd: 'rm -f build.log tmp/cache.json', deleted: ['build.log', 'tmp/cache.json'] },
  { cmd: 'git rm -q stale.ts', deleted: ['stale.ts'] },
  { cmd: 'touch a.txt', modified: ['a.txt'] },
  {
    cmd: "git apply <<'PATCH'\n--- a/src/m.py\n+++ b/src/m.py\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/src/added.py\n@@\n+x\nPATCH",
    created: ['src/added.py'],
    modified: ['src/m.py'],
  },
  { cmd: 'patch -p1 <<EOF\n--- a/old.c\n+++ /dev/null\n@@\n-x\nEOF', deleted: ['old.c'] },
  {
    cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** Add File: c.py\n+z\n*** Delete File: d.py\n*** End Patch\nEOF",
    created: ['c.py'],
    deleted: ['d.py'],
    renamed: [['a.py', 'b.py']],
  },
  { cmd: `python -c "open('out.json','w').write('{}')"`, modified: ['out.json'] },
  {
    cmd: "python3 - <<'EOF'\nfrom pathlib import Path\nPath('gen/a.txt').write_text('x')\nwith open(\"gen/b.txt\", \"a\") as f: pass\nprint(open('r.txt').read())\nEOF",
    modified: ['gen/a.txt', 'gen/b.txt'],
  },
  { cmd: `node -e "require('fs').writeFileSync('x.json', '1')"`, modified: ['x.json'] },
  { cmd: 'cd src && sed -i s/a/b/ util.py && cd .. && cat README.md', modified: ['src/util.py'], read: ['README.md'] },
  { cmd: "bash -lc 'echo x > inner.txt'", modified: ['inner.txt'] },
  { cmd: 'sudo -E env FOO=1 timeout 10 sed -i s/a/b/ w.txt', modified: ['w.txt'] },
  { cmd: 'git checkout -- src/a.ts src/b.ts', modified: ['src/a.ts', 'src/b.ts'] },
  { cmd: 'git restore lib/x.go', modified: ['lib/x.go'] },
  { cmd: 'cat a.py b.py | head -20', read: ['a.py', 'b.py'] },
  { cmd: 'head -n 50 setup.py && tail -n +10 CHANGES.rst', read: ['setup.py', 'CHANGES.rst'] },
  { cmd: 'nl -ba src/x.c | sed -n 1,40p', read: ['src/x.c'] },
  { cmd: './a/../b/./c.sh > ./logs/../out.txt', modified: ['out.txt'] },
  // Negatives: nothing is written.
  { cmd: 'grep -r "> foo" .' },
  { cmd: "grep -rn 'rm -rf' src | wc -l" },
  { cmd: 'echo "a > b" && echo \'c >> d\'' },
  { cmd: 'ls -la > /dev/null 2>&1' },
  { cmd: 'find . -name "*.py" | xargs grep -l "open(x, \'w\')" ; true' },
  { cmd: 'rm -rf $TMPDIR/x *.pyc' },
  { cmd: 'git status && git diff && git log --oneline | head' },
  { cmd: 'python -m pytest tests/ -x 2>&1 | tail -20' },
  { cmd: '# echo x > commented.txt\nls' },
];

for (const row of ROWS) {
  test(`shell effects: ${row.cmd.split('\n')[0] ?? ''}`, () => {
    const e = shellEffects(row.cmd);
    assert.deepEqual(
      { created: e.created, modified: e.modified, deleted: e.deleted, renamed: e.renamed.map((r) => [r.from, r.to]), read: e.read },
      {
        created: [...(row.created ?? [])],
        modified: [...(row.modified ?? [])],
        deleted: [...(row.deleted ?? [])],
        renamed: (row.renamed ?? []).map((r) => [...r]),
        read: [...(row.read ?? [])],
      },
    );
  });
}
