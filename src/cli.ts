#!/usr/bin/env node
// The `domainkit` command. Settings are read and validated once, before any command runs.
import { Command } from 'commander';
import { ConfigError, durations, loadConfig, loadDotEnv, type Config } from './config.ts';
import {
  budgetRecord,
  ensureSourceColumns,
  formatBudget,
  JOB_SOURCES,
  listTenantBudgets,
  makeKey,
  parseScopes,
  setTenantBudget,
  sourceRegistry,
} from './jobs/index.ts';
import { domainToAdd, putDomain, signAccountToken } from './mail/index.ts';
import { migrate, openDatabase, UnsupportedServerError, type Database } from './platform/db/index.ts';
import { createLogger, type Logger } from './platform/log.ts';
import { onShutdown } from './platform/shutdown.ts';
import { deliveryLog, formatDeliveryLog } from './platform/webhooks/index.ts';
import { ROLES, VERSION, startRoles, type Role } from './roles.ts';

function settings(): Config {
  loadDotEnv();
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`domainkit: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** Admin commands print results on stdout; their log lines go to stderr and only when something is wrong. */
function adminLogger(config: Config): Logger {
  return createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel }, process.stderr);
}

async function serve(roles: readonly Role[]): Promise<void> {
  const config = settings();
  const log = createLogger({ level: config.logLevel, name: 'domainkit' });
  const starting = startRoles(config, log, roles);
  // Signals are handled from the first moment: a Ctrl-C during start-up waits for the roles to be up, then
  // stops them, so the embedded database (in a session of its own) is never left behind.
  onShutdown(async () => (await starting.catch(() => undefined))?.stop(), log);
  await starting.catch((err: unknown) => {
    log.fatal({ err }, 'could not start');
    // A server too old is the operator's to fix: say so in one plain line too, as for a bad setting.
    if (err instanceof UnsupportedServerError) process.stderr.write(`domainkit: ${err.message}\n`);
    process.exit(1);
  });
}

/** An admin command's database (the service's embedded one, or DATABASE_URL), migrated, closed afterwards. */
async function withDatabase<T>(run: (db: Database) => Promise<T>): Promise<T> {
  const config = settings();
  const log = adminLogger(config);
  const db = await openDatabase(config, log);
  try {
    await migrate(db.url, log);
    return await run(db);
  } finally {
    await db.close();
  }
}

const program = new Command('domainkit')
  .description('domainkit: a jobs API for domain metrics and a disposable-mail API with SMTP')
  .version(VERSION);

program
  .command('start')
  .description('everything in one process: migrations, both APIs, SMTP, workers')
  .action(() => serve(ROLES));

const roleHelp: Record<Role, string> = {
  'jobs-api': 'the jobs API alone (JOBS_PORT)',
  'mail-api': 'the mail API alone (MAIL_PORT)',
  smtp: 'the SMTP receiver alone (SMTP_PORT)',
  worker: 'the background workers alone',
};
for (const role of ROLES) {
  program
    .command(role)
    .description(roleHelp[role])
    .action(() => serve([role]));
}

program
  .command('migrate')
  .description('apply database migrations and exit')
  .action(async () => {
    const config = settings();
    const log = adminLogger(config);
    const db = await openDatabase(config, log);
    try {
      console.log(`database: ${describeDatabase(db.embedded)}`);
      const applied = await migrate(db.url, log);
      // The job sources' typed columns too, as every role does at start: the schema is then whole.
      await ensureSourceColumns(db.pool, sourceRegistry(JOB_SOURCES), log);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'migrations: none pending');
    } finally {
      await db.close();
    }
  });

program
  .command('deliveries')
  .description('print the webhook delivery log (the latest deliveries, or those of one job or inbox)')
  .option('--job <id>', 'deliveries of one job')
  .option('--inbox <address>', 'deliveries of one inbox')
  .option('--limit <n>', 'at most this many deliveries', '50')
  .action(async (opts: { job?: string; inbox?: string; limit: string }) => {
    if (opts.job && opts.inbox) throw new Error('give --job or --inbox, not both');
    const limit = Number(opts.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit takes a positive integer');
    const config = settings();
    const db = await openDatabase(config, adminLogger(config));
    try {
      const filter = opts.job
        ? { service: 'jobs', subject: opts.job }
        : opts.inbox
          ? { service: 'mail', subject: opts.inbox.toLowerCase() }
          : {};
      process.stdout.write(formatDeliveryLog(await deliveryLog(db.pool, { ...filter, limit })));
    } finally {
      await db.close();
    }
  });

const jobs = program.command('jobs').description('operate the jobs service');
jobs
  .command('keys')
  .description("manage tenants' API keys")
  .command('create')
  .description('make an API key (creating the tenant if new) and print its token once')
  .requiredOption('--tenant <name>', 'the tenant the key belongs to')
  .requiredOption('--name <name>', 'a label for the key')
  .requiredOption('--scopes <list>', 'comma-separated: jobs:create, jobs:read, keys:admin, keys:read')
  .option('--json', 'print {id, token, tenant} as JSON')
  .action(async (opts: { tenant: string; name: string; scopes: string; json?: boolean }) => {
    const scopes = parseScopes(opts.scopes);
    const key = await withDatabase((db) => makeKey(db.pool, opts.tenant, opts.name, scopes));
    if (opts.json) console.log(JSON.stringify({ id: key.id, token: key.token, tenant: key.tenant }));
    else {
      console.log(`key ${key.id} for tenant ${key.tenant} (${key.scopes.join(', ')})`);
      console.log(`token (shown once, keep it now): ${key.token}`);
    }
  });

const budgets = jobs.command('budgets').description("tenants' monthly budgets per source (docs/api/README.md, Budgets)");
budgets
  .command('set')
  .description("set a tenant's monthly budget of a source, in the source's billing unit (none removes it)")
  .requiredOption('--tenant <name>', 'the tenant (made with its first key)')
  .requiredOption(
    '--source <name>',
    `a source with a billing unit: ${JOB_SOURCES.filter((d) => d.billing.unit !== null)
      .map((d) => d.name)
      .join(', ')}`,
  )
  .requiredOption('--limit <n|none>', 'what the source may cost per UTC calendar month, or none to remove the budget')
  .option('--json', 'print the budget as the API answers it')
  .action(async (opts: { tenant: string; source: string; limit: string; json?: boolean }) => {
    const budget = await withDatabase((db) => setTenantBudget(db.pool, sourceRegistry(JOB_SOURCES), opts.tenant, opts.source, opts.limit));
    console.log(opts.json ? JSON.stringify(budgetRecord(budget)) : formatBudget(budget));
  });
budgets
  .command('list')
  .description("print a tenant's budgets with what was spent and what is left this month")
  .requiredOption('--tenant <name>', 'the tenant')
  .option('--json', 'print {budgets: […]} as the API answers it')
  .action(async (opts: { tenant: string; json?: boolean }) => {
    const list = await withDatabase((db) => listTenantBudgets(db.pool, sourceRegistry(JOB_SOURCES), opts.tenant));
    if (opts.json) console.log(JSON.stringify({ budgets: list.map(budgetRecord) }));
    else if (list.length === 0) console.log(`tenant ${opts.tenant} has no budget`);
    else for (const budget of list) console.log(formatBudget(budget));
  });

const mail = program.command('mail').description('operate the mail service');
mail
  .command('domains')
  .description('the domains inboxes are made on')
  .command('add')
  .description('add a mail domain (or change the visibility and tier of one already there)')
  .argument('<name>', 'the domain, e.g. mail.example.org (its MX must point at this SMTP listener)')
  .option('--private', 'not offered to anonymous generation (a custom domain of the Developer tier)')
  .option('--tier <n>', 'the account tier needed to make inboxes on it', '0')
  .action(async (name: string, opts: { private?: boolean; tier: string }) => {
    const wanted = domainToAdd(name, { isPublic: !opts.private, tierRequired: /^\d+$/.test(opts.tier) ? Number(opts.tier) : Number.NaN });
    const domain = await withDatabase((db) => putDomain(db.pool, wanted));
    console.log(`domain ${domain.name}: ${domain.isPublic ? 'public' : 'private'}, tier ${domain.tierRequired}`);
  });

mail
  .command('token')
  .description('print a JWT for an account, signed with MAIL_JWT_SECRET (local use; no database needed)')
  .requiredOption('--account <id>', "the account id (the token's sub)")
  .requiredOption('--tier <n>', 'the account tier (3: Developer)')
  .option('--ttl <duration>', 'how long the token is valid: 30m, 1h, 24h', '1h')
  .action(async (opts: { account: string; tier: string; ttl: string }) => {
    const config = settings();
    const secret = config.mail.jwtSecret;
    if (secret === undefined) {
      throw new Error(
        config.mail.jwksUrl
          ? 'MAIL_JWT_SECRET is not set: this service verifies JWTs with MAIL_JWKS_URL, so tokens come from that issuer'
          : 'MAIL_JWT_SECRET is not set: set it (at least 32 bytes) to sign tokens',
      );
    }
    const ttl = durations(opts.ttl);
    const ms = 'value' in ttl && ttl.value.length === 1 ? ttl.value[0]! : Number.NaN;
    if (!(ms >= 1000)) throw new Error('--ttl takes one duration of at least 1s, such as 30m, 1h or 24h');
    const tier = /^\d+$/.test(opts.tier) ? Number(opts.tier) : Number.NaN;
    console.log(await signAccountToken(secret, { account: opts.account, tier, ttlSeconds: Math.floor(ms / 1000) }));
  });

program
  .command('mcp')
  .description('a Model Context Protocol server over stdio for agents: inboxes, and waits for a message, a code or a link')
  .option('--url <url>', 'the mail API (env DOMAINKIT_MAIL_URL)', process.env.DOMAINKIT_MAIL_URL)
  .option('--api-key <key>', "an account's API key, for private and account inboxes (env DOMAINKIT_API_KEY)", process.env.DOMAINKIT_API_KEY)
  .action(async (opts: { url?: string; apiKey?: string }) => {
    // A client of the mail API, not a role: it reads no settings and needs no database.
    const { DEFAULT_MAIL_URL, runMcpServer } = await import('./mcp/index.ts');
    await runMcpServer({ url: opts.url || DEFAULT_MAIL_URL, apiKey: opts.apiKey || undefined, version: VERSION });
  });

function describeDatabase(embedded: Awaited<ReturnType<typeof openDatabase>>['embedded']): string {
  if (!embedded) return 'DATABASE_URL';
  const whose = embedded.owned ? 'started for this command' : 'already running';
  return `embedded PostgreSQL on 127.0.0.1:${embedded.port} (pid ${embedded.pid}, ${whose})`;
}

await program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`domainkit: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
