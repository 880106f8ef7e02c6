/**
 * The one place that reads the environment and the workflow config file. Everything else
 * receives a typed `Config` from `main.ts`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { SignoffError } from '../errors.js';
import { defaultDataDir } from './data-folder.js';
import { parseWorkflowConfig, type WorkflowsConfig } from './workflows.js';

const optionalString = z
  .string()
  .transform((s) => s.trim())
  .pipe(z.string())
  .optional()
  .transform((s) => (s ? s : undefined));

const intFrom = (name: string, min: number, def: number) =>
  z.coerce
    .number({ error: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .default(def);

/**
 * An http(s) URL, its sentence echoing what was given. `localhost:11434` parses as a URL whose
 * scheme is `localhost:`, so the scheme is checked too: the client would refuse it at the first call.
 */
const webUrl = (name: string, example: string) =>
  optionalString.refine(
    (v) => v === undefined || (URL.canParse(v) && /^https?:$/.test(new URL(v).protocol)),
    { error: (issue) => `${name} must be a URL such as ${example}, not "${String(issue.input)}"` },
  );

const envSchema = z.object({
  SLACK_BOT_TOKEN: optionalString.refine((v) => v === undefined || v.startsWith('xoxb-'), {
    message: 'SLACK_BOT_TOKEN must be a bot token starting with xoxb-',
  }),
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_APP_TOKEN: optionalString.refine((v) => v === undefined || v.startsWith('xapp-'), {
    message: 'SLACK_APP_TOKEN must be an app-level token starting with xapp-',
  }),
  SLACK_API_URL: webUrl('SLACK_API_URL', 'https://slack.com/api/'),
  DATABASE_URL: optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
    message: 'DATABASE_URL must be a postgres:// URL',
  }),
  SIGNOFF_DATA_DIR: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: webUrl('OPENAI_BASE_URL', 'http://127.0.0.1:11434/v1'),
  OPENAI_MODEL: optionalString,
  OPENAI_MAX_RETRIES: intFrom('OPENAI_MAX_RETRIES', 0, 4),
  OPENAI_TIMEOUT_SECONDS: intFrom('OPENAI_TIMEOUT_SECONDS', 1, 120),
  OPENAI_DEADLINE_SECONDS: intFrom('OPENAI_DEADLINE_SECONDS', 1, 300),
  PORT: intFrom('PORT', 0, 3000).refine((p) => p <= 65535, 'PORT must be at most 65535'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .optional(),
  SIGNOFF_CONFIG: optionalString,
  SIGNOFF_WORKERS: intFrom('SIGNOFF_WORKERS', 1, 4),
  SIGNOFF_ROLE: z
    .enum(['all', 'web', 'worker'], { error: 'SIGNOFF_ROLE must be all, web or worker' })
    .default('all'),
  SIGNOFF_LEASE_SECONDS: intFrom('SIGNOFF_LEASE_SECONDS', 2, 30),
  SIGNOFF_SCRIPTED_DELAY_MS: intFrom('SIGNOFF_SCRIPTED_DELAY_MS', 0, 0),
  SIGNOFF_RETENTION_DAYS: intFrom('SIGNOFF_RETENTION_DAYS', 1, 30),
  SIGNOFF_AUDIT_RETENTION_DAYS: intFrom('SIGNOFF_AUDIT_RETENTION_DAYS', 0, 0),
  SIGNOFF_METRICS_TOKEN: optionalString.refine((v) => v === undefined || v.length >= 16, {
    message: 'SIGNOFF_METRICS_TOKEN must be at least 16 characters',
  }),
});

/**
 * The most a model's answer may weigh, in bytes. A non-streamed answer is a few hundred KB at
 * most; a streamed one repeats ~200 bytes of framing per token, so a 32k-token answer nears 8 MB.
 * Past this the server is misbehaving, and holding its answer would only cost memory.
 */
export const MODEL_ANSWER_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The key sent to an `OPENAI_BASE_URL` given without `OPENAI_API_KEY`. A local server (Ollama,
 * llama.cpp, LM Studio, vLLM without `--api-key`) takes no key, but the OpenAI client will not
 * call without one: the same placeholder Ollama's own examples send. A base URL is a choice of
 * server; answering it with the offline model instead would be a surprise.
 */
export const NO_KEY_PLACEHOLDER = 'no-key';

/** Every variable signoff reads (`.env.example` lists each; a unit test holds them equal). */
export const ENV_VARIABLES = Object.keys(envSchema.shape) as (keyof typeof envSchema.shape)[];

export type Env = Record<string, string | undefined>;

/**
 * Drops variables that are empty or blank: `VAR=` in an env file (docker's `--env-file`, compose,
 * `.env.example` copied as it is) means "not set", never "set to nothing".
 */
function setOnly(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
}

export interface Config {
  /** Where Slack traffic comes from; `undefined` means the terminal surface. */
  slack?: {
    botToken: string;
    mode: { kind: 'http'; signingSecret: string; port: number } | { kind: 'socket'; appToken: string };
    apiUrl?: string;
  };
  /**
   * Set when some of Slack's variables are and not all it needs (then `slack` is unset): the sentence
   * naming the one missing. What needs Slack (a server, `signoff mcp`) refuses with it; a command that
   * needs no Slack (`signoff tasks`) runs.
   */
  slackMissing?: string;
  database: { url?: string; dataDir: string };
  /** `maxRetries`: how often the client retries a failed call (timeouts, 429, 5xx, unreadable answers). */
  /**
   * `apiKey` unset means the offline scripted model; an `OPENAI_BASE_URL` without a key gets
   * NO_KEY_PLACEHOLDER, so a local server is used as it is.
   */
  model: {
    apiKey?: string;
    baseUrl?: string;
    name: string;
    maxRetries: number;
    /**
     * How long one call may take, from the request to the answer's last byte, before it counts
     * as timed out (and is retried).
     */
    timeoutMs: number;
    /**
     * How long a whole model call may take, its retries and their backoff included: without it
     * a step could wait (maxRetries + 1) × timeoutMs.
     */
    deadlineMs: number;
    /** The most an answer may weigh (MODEL_ANSWER_MAX_BYTES); a bigger one fails the call. */
    maxAnswerBytes: number;
    scriptedDelayMs: number;
  };
  /** Unset means info; the terminal writes its log to a file in the data folder, a server to stderr. */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  port: number;
  /**
   * Whether PORT was set, not defaulted: without Slack, `npm start` is the terminal and serves no
   * HTTP, which someone who set a port expects it to (bin.ts says so). Only this module reads env.
   */
  portSet?: boolean;
  /**
   * What this process does: `web` answers Slack (acks stay fast), `worker` runs graphs and posts
   * their results, `all` both. Scale out with any mix against one database.
   */
  role: 'all' | 'web' | 'worker';
  /**
   * `leaseSeconds`: how long a task's run or delivery stays claimed without a heartbeat: the time
   * a crashed process holds a task up, and how soon a holder that lost its database stops.
   */
  queue: { workers: number; leaseSeconds: number };
  /** How long finished tasks keep their checkpoints and events (days); the audit log's (0 = always). */
  retention: { days: number; auditDays: number };
  /** When set, GET /metrics answers only `Authorization: Bearer <token>` (its port may face Slack's internet). */
  metricsToken?: string;
  workflows: WorkflowsConfig;
  configPath?: string;
}

/**
 * Parses the environment once; throws one `config_invalid` error listing every problem, but for a
 * half-configured Slack alone, which only what needs Slack refuses (`slackMissing`).
 */
export function loadConfig(given: Env = process.env, cwd = process.cwd()): Config {
  const env = setOnly(given);
  const parsed = envSchema.safeParse(env);
  const problems: string[] = parsed.success
    ? []
    : parsed.error.issues.map((i) => i.message || `${i.path.join('.')}: invalid`);
  // A half-configured Slack is said with any other problem: it is one more thing to fix.
  const { slack, missing } = slackFrom(parsed.success ? parsed.data : lenient(env));
  const invalid = () =>
    new SignoffError('config_invalid', [...problems, ...(missing ? [missing] : [])].join('\n'));
  if (!parsed.success) throw invalid();
  const e = parsed.data;

  const configPath = e.SIGNOFF_CONFIG ? resolve(cwd, e.SIGNOFF_CONFIG) : undefined;
  let workflows: WorkflowsConfig = parseWorkflowConfig('', '(defaults)');
  if (configPath) {
    let text: string | undefined;
    try {
      text = readFileSync(configPath, 'utf8');
    } catch (cause) {
      problems.push(`SIGNOFF_CONFIG: cannot read ${configPath} (${(cause as Error).message})`);
    }
    if (text !== undefined) {
      try {
        workflows = parseWorkflowConfig(text, configPath);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  }
  if (problems.length) throw invalid();

  return {
    slack,
    slackMissing: missing,
    database: {
      url: e.DATABASE_URL,
      dataDir: e.SIGNOFF_DATA_DIR ? resolve(cwd, e.SIGNOFF_DATA_DIR) : defaultDataDir(cwd),
    },
    model: {
      apiKey: e.OPENAI_API_KEY ?? (e.OPENAI_BASE_URL ? NO_KEY_PLACEHOLDER : undefined),
      baseUrl: e.OPENAI_BASE_URL,
      name: e.OPENAI_MODEL ?? 'gpt-4o-mini',
      maxRetries: e.OPENAI_MAX_RETRIES,
      timeoutMs: e.OPENAI_TIMEOUT_SECONDS * 1000,
      deadlineMs: e.OPENAI_DEADLINE_SECONDS * 1000,
      maxAnswerBytes: MODEL_ANSWER_MAX_BYTES,
      scriptedDelayMs: e.SIGNOFF_SCRIPTED_DELAY_MS,
    },
    logLevel: e.LOG_LEVEL,
    port: e.PORT,
    portSet: env.PORT !== undefined,
    role: e.SIGNOFF_ROLE,
    queue: {
      workers: e.SIGNOFF_WORKERS,
      leaseSeconds: e.SIGNOFF_LEASE_SECONDS,
    },
    retention: { days: e.SIGNOFF_RETENTION_DAYS, auditDays: e.SIGNOFF_AUDIT_RETENTION_DAYS },
    metricsToken: e.SIGNOFF_METRICS_TOKEN,
    workflows,
    configPath,
  };
}

type SlackEnv = Pick<
  z.infer<typeof envSchema>,
  'SLACK_BOT_TOKEN' | 'SLACK_SIGNING_SECRET' | 'SLACK_APP_TOKEN' | 'SLACK_API_URL' | 'PORT'
>;

const lenient = (env: Env): SlackEnv => ({
  SLACK_BOT_TOKEN: env.SLACK_BOT_TOKEN?.trim() || undefined,
  SLACK_SIGNING_SECRET: env.SLACK_SIGNING_SECRET?.trim() || undefined,
  SLACK_APP_TOKEN: env.SLACK_APP_TOKEN?.trim() || undefined,
  SLACK_API_URL: env.SLACK_API_URL?.trim() || undefined,
  PORT: 0,
});

/**
 * Slack is all or nothing: a half-configured Slack is no Slack, and `missing` says which variable
 * it lacks, for whatever needs Slack to refuse with (never a silent fallback to the terminal).
 */
function slackFrom(e: SlackEnv): { slack?: Config['slack']; missing?: string } {
  const any = e.SLACK_BOT_TOKEN || e.SLACK_SIGNING_SECRET || e.SLACK_APP_TOKEN;
  if (!any) return {};
  if (!e.SLACK_BOT_TOKEN)
    return { missing: 'SLACK_BOT_TOKEN is missing: Slack needs the bot token (xoxb-…) as well' };
  if (e.SLACK_APP_TOKEN) {
    return {
      slack: {
        botToken: e.SLACK_BOT_TOKEN,
        mode: { kind: 'socket', appToken: e.SLACK_APP_TOKEN },
        apiUrl: e.SLACK_API_URL,
      },
    };
  }
  if (!e.SLACK_SIGNING_SECRET) {
    return {
      missing: 'SLACK_SIGNING_SECRET is missing: HTTP mode needs it (or set SLACK_APP_TOKEN for Socket Mode)',
    };
  }
  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      mode: { kind: 'http', signingSecret: e.SLACK_SIGNING_SECRET, port: e.PORT },
      apiUrl: e.SLACK_API_URL,
    },
  };
}
