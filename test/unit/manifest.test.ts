import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

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

  it('has what the app uses: /signoff, interactivity, the events, Socket Mode, the scopes', () => {
    expect(manifest.features.slash_commands.map((c: { command: string }) => c.command)).toEqual(['/signoff']);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(['message.channels', 'app_mention', 'app_home_opened']),
    );
    expect(manifest.oauth_config.scopes.bot).toEqual(
      expect.arrayContaining(['commands', 'chat:write', 'chat:write.customize', 'im:write', 'im:history']),
    );
  });
});
