import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { METHOD_SCOPES } from '../helpers/slack-scopes.js';

const ROOT = join(import.meta.dirname, '..', '..');
const manifest = parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8'));
const schema = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'slack-manifest.schema.json'), 'utf8'));

describe('manifest.yml', () => {
  it("validates against Slack's app-manifest schema", () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    // ajv-formats is CommonJS: under NodeNext its default export arrives wrapped.
    const addFormats = (formatsPlugin as unknown as { default: (a: Ajv) => void }).default;
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate(manifest), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('installs in one workspace, and the README says how to install it org-wide instead', () => {
    expect(manifest.settings.org_deploy_enabled).toBe(false);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('set `org_deploy_enabled: true`');
    // The flipped manifest is still one Slack takes.
    const ajv = new Ajv({ allErrors: true, strict: false });
    (formatsPlugin as unknown as { default: (a: Ajv) => void }).default(ajv);
    const orgWide = { ...manifest, settings: { ...manifest.settings, org_deploy_enabled: true } };
    expect(ajv.compile(schema)(orgWide)).toBe(true);
  });

  it('opens as an agent in its Messages tab, which people may write in (Slack allows four prompts, 300 characters of description)', () => {
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
    expect(manifest.features.app_home.messages_tab_read_only_enabled).toBe(false);
    expect(manifest.features.agent_view.agent_description.length).toBeLessThanOrEqual(300);
    expect(manifest.features.agent_view.suggested_prompts.length).toBeLessThanOrEqual(4);
  });

  it('has what the app uses: /signoff, interactivity, the events, Socket Mode, the scopes', () => {
    expect(manifest.features.slash_commands.map((c: { command: string }) => c.command)).toEqual(['/signoff']);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining([
        'message.channels',
        'message.groups',
        'message.im',
        'app_home_opened',
        'agent_session_stopped',
      ]),
    );
    expect(manifest.oauth_config.scopes.bot).toEqual(
      expect.arrayContaining(['commands', 'chat:write', 'chat:write.customize', 'im:write', 'im:history']),
    );
  });
});

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** What the app needs besides its methods' scopes, and why. */
const FEATURE_SCOPES: Record<string, string> = {
  commands: 'the /signoff slash command',
  'chat:write.customize': 'agents post under their own names (username, icon_emoji)',
  'channels:history': 'message.channels events: replies in task threads',
  'groups:history': 'message.groups events: replies in private channels',
  'im:history': 'message.im events: tasks started in the Messages tab, and replies in their threads',
};

/** The Web API methods the code calls, as `family.method`. */
function methodsCalled(): Set<string> {
  const called = new Set<string>();
  const call =
    /\bclient\.(auth|chat|conversations|users|usergroups|views|reactions|files|team|apps|assistant)\.([a-zA-Z]+(?:\.[a-zA-Z]+)*)\(/g;
  const paged = /\bpaginate\(\s*'([a-z]+\.[a-zA-Z.]+)'/g;
  for (const file of sources(join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(call)) called.add(`${m[1]}.${m[2]}`);
    for (const m of text.matchAll(paged)) called.add(m[1] as string);
  }
  return called;
}

describe('manifest.yml asks for what the code uses, and no more', () => {
  const called = methodsCalled();

  it('every Web API method the code calls has its scopes on record', () => {
    expect([...called].filter((m) => !(m in METHOD_SCOPES))).toEqual([]);
    // The scan finds calls at all (a wrong pattern would pass the check above vacuously).
    expect([...called]).toEqual(
      expect.arrayContaining([
        'chat.postMessage',
        'usergroups.users.list',
        'conversations.members',
        'users.conversations',
      ]),
    );
  });

  it('the bot scopes are exactly those its methods and features need', () => {
    const needed = new Set([
      ...[...called].flatMap((m) => METHOD_SCOPES[m] ?? []),
      ...Object.keys(FEATURE_SCOPES),
    ]);
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
  });

  it('every event subscribed has a listener (a mention in a thread is a message event: no app_mention)', () => {
    const listeners = readFileSync(join(ROOT, 'src', 'slack', 'inbound', 'listeners', 'index.ts'), 'utf8');
    const handled = new Set([...listeners.matchAll(/app\.event\('([a-z_]+)'/g)].map((m) => m[1]));
    const unhandled = (manifest.settings.event_subscriptions.bot_events as string[]).filter(
      (e) => !handled.has(e.split('.')[0]),
    );
    expect(unhandled).toEqual([]);
  });
});
