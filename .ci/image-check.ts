/**
 * Checks the Docker image's contents where no Docker daemon runs: follows the Dockerfile in a
 * clean temporary folder (one folder per stage; COPY from the build context as .dockerignore
 * leaves it, or from an earlier stage; the npm steps run as written), then runs the image's
 * entry point there: `--help`, `npx signoff --help` through bin/, and a worker process whose
 * health is asked with the HEALTHCHECK's own command. Steps that need the image's operating system
 * (apt-get, the user) are listed, not run. Usage: npm run check:image
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = join(import.meta.dirname, '..');
const report: string[] = [];
const say = (line: string) => {
  report.push(line);
  process.stdout.write(`${line}\n`);
};
const fail = (why: string): never => {
  process.stderr.write(`image check failed: ${why}\n`);
  process.exit(1);
};

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line.startsWith('#') || !line)) continue;
    pending += line.endsWith('\\') ? `${line.slice(0, -1)} ` : line;
    if (line.endsWith('\\')) continue;
    const [op, ...rest] = pending.split(/\s+/);
    out.push({ op: (op as string).toUpperCase(), args: rest.join(' ') });
    pending = '';
  }
  return out;
}

/** .dockerignore's patterns: a name, a path, or `*.ext`, matched against each path and its parents. */
function ignoredBy(patterns: string[]): (path: string) => boolean {
  const regexes = patterns.map(
    (p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`),
  );
  return (path) =>
    path.split('/').some((_, i, parts) => regexes.some((r) => r.test(parts.slice(i).join('/'))));
}

const dockerignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const ignored = ignoredBy(dockerignore);

/** Copies `from` to `to` as COPY does: a folder's contents into the target folder. */
function copy(from: string, to: string, context: boolean): void {
  if (!existsSync(from)) fail(`COPY: ${from} does not exist`);
  cpSync(from, to, {
    recursive: true,
    dereference: true,
    filter: (source) => !context || !ignored(relative(ROOT, source)) || source === ROOT,
  });
}

const work = mkdtempSync(join(tmpdir(), 'signoff-image-'));
// As root the embedded PostgreSQL runs as another user, who must be able to enter this folder.
chmodSync(work, 0o755);
const stages: { name: string; root: string; workdir: string; env: Record<string, string> }[] = [];
const final = { healthcheck: '', cmd: [] as string[], startPeriodS: 60, volumes: [] as string[] };

for (const { op, args } of instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))) {
  const stage = stages.at(-1);
  if (op === 'FROM') {
    const name = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${stages.length}`;
    const root = join(work, name);
    mkdirSync(root, { recursive: true });
    stages.push({ name, root, workdir: root, env: {} });
    say(`FROM ${args}: a clean folder ${root}`);
  } else if (!stage) fail(`${op} before FROM`);
  else if (op === 'WORKDIR') {
    stage.workdir = join(stage.root, args);
    mkdirSync(stage.workdir, { recursive: true });
  } else if (op === 'ENV') {
    const [key, value] = args.split('=');
    stage.env[key as string] = value as string;
  } else if (op === 'COPY') {
    const words = args.split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
    const paths = words.filter((w) => !w.startsWith('--'));
    const last = paths.pop() as string;
    // Paths in a stage are absolute there, or relative to its WORKDIR; in the context, to its root.
    const inStage = (s: { root: string; workdir: string }, p: string) =>
      p.startsWith('/') ? join(s.root, p) : join(s.workdir, p);
    const dest = inStage(stage, last);
    const origin = from ? (stages.find((s) => s.name === from) ?? fail(`no stage ${from}`)) : undefined;
    for (const p of paths) {
      const target = paths.length > 1 || last.endsWith('/') ? join(dest, p.split('/').pop() as string) : dest;
      mkdirSync(dirname(target), { recursive: true });
      copy(origin ? inStage(origin, p) : join(ROOT, p), target, !origin);
    }
    say(`COPY ${args}`);
  } else if (op === 'RUN') {
    if (!args.startsWith('npm ')) {
      say(`RUN ${args.slice(0, 70)}…: not run here (it sets up the image's operating system)`);
      continue;
    }
    say(`RUN ${args}`);
    const run = spawnSync('sh', ['-c', args], { cwd: stage.workdir, stdio: 'inherit', env: process.env });
    if (run.status !== 0) fail(`RUN ${args} exited ${run.status}`);
  } else if (op === 'VOLUME') final.volumes.push(args);
  else if (op === 'HEALTHCHECK') {
    final.healthcheck = args.slice(args.indexOf('CMD ') + 4);
    final.startPeriodS = Number(/--start-period=(\d+)s/.exec(args)?.[1] ?? 0);
  } else if (op === 'CMD') final.cmd = JSON.parse(args);
}

const image = stages.at(-1) ?? fail('no stage');
const inImage = (path: string) => join(image.workdir, path);
for (const path of [
  'bin/signoff.mjs',
  'examples/declared/release-notes.yml',
  'migrations',
  'dist/src/bin.js',
])
  if (!existsSync(inImage(path))) fail(`the image has no ${path}`);
if (existsSync(inImage('src'))) fail('the image carries the TypeScript source');
if (!final.volumes.includes('/app/.data')) fail('no VOLUME for /app/.data');
const size = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isDirectory() ? size(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );
say(
  `the image's /app: ${(size(image.workdir) / 1e6).toFixed(0)} MB; ${readdirSync(image.workdir).sort().join(' ')}`,
);

const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...image.env };
for (const entry of [final.cmd.slice(1), ['bin/signoff.mjs']]) {
  const help = spawnSync(final.cmd[0] as string, [...entry, '--help'], {
    cwd: image.workdir,
    env,
    encoding: 'utf8',
  });
  if (help.status !== 0 || !help.stdout.includes('usage')) fail(`${entry.join(' ')} --help: ${help.stderr}`);
  say(`node ${entry.join(' ')} --help: exit 0, prints the usage`);
}

/** A worker on the embedded PostgreSQL, started as the image starts it; healthy by the HEALTHCHECK's command. */
const port = await new Promise<number>((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port: p } = server.address() as { port: number };
    server.close(() => resolve(p));
  });
});
const role = {
  ...env,
  SIGNOFF_ROLE: 'worker',
  SLACK_BOT_TOKEN: 'xoxb-image-check',
  SLACK_APP_TOKEN: 'xapp-image-check',
  // Nothing listens there: the check never talks to Slack.
  SLACK_API_URL: 'http://127.0.0.1:9/api/',
  SIGNOFF_DATA_DIR: join(work, 'data'),
  PORT: String(port),
};
const worker: ChildProcess = spawn(final.cmd[0] as string, final.cmd.slice(1), {
  cwd: image.workdir,
  env: role,
  stdio: 'inherit',
});
const started = Date.now();
let healthy = false;
while (!healthy && Date.now() - started < Math.max(final.startPeriodS, 60) * 1000 * 2) {
  await sleep(1000);
  healthy = spawnSync('sh', ['-c', final.healthcheck], { cwd: image.workdir, env: role }).status === 0;
}
const stopped = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
worker.kill('SIGTERM');
const code = await stopped;
if (!healthy) fail('the worker never answered the HEALTHCHECK');
say(
  `SIGNOFF_ROLE=worker node ${final.cmd.slice(1).join(' ')}: healthy by the HEALTHCHECK's command after ${((Date.now() - started) / 1000).toFixed(0)} s (embedded PostgreSQL, first start); SIGTERM: exit ${code}`,
);
if (code !== 143) fail(`SIGTERM ended the worker with ${code}, not 143`);
rmSync(work, { recursive: true, force: true });
say('the image check passed');
