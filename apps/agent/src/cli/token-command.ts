import { Command, Option } from 'commander';
import { ApiHttpError, ApiNetworkError, ApiShapeError, callApi, describeStatus, type CallInput } from '@kneeboard/api-client';
import { describeCause } from '@kneeboard/agent-sdk';
import { CreateTokenBody, DEFAULT_API_URL, endpointPath, ENDPOINTS, TokenScope, type CreateTokenBody as CreateTokenInput, type EndpointSpec, type ParamsOf, type SuccessOf, type TokenInfo } from '@kneeboard/contracts';
import { EXIT } from './exit-codes.ts';
import { parseDuration } from './parse-flags.ts';
import { tokenOption } from './token-option.ts';

interface ApiFlags {
  api: string;
  token?: string;
  json?: boolean;
}

class TokenCommandError extends Error {}

/** One call to the token routes through the shared core (@kneeboard/api-client), the admin token in its header; a refusal becomes one sentence. */
async function tokenCall<E extends EndpointSpec>(flags: ApiFlags, ep: E, input: CallInput<E> = {}): Promise<SuccessOf<E>> {
  const { method } = ep;
  const path = endpointPath(ep, (input.params ?? {}) as ParamsOf<E>);
  try {
    return await callApi(ep, input, { baseUrl: flags.api, token: flags.token });
  } catch (err) {
    if (err instanceof ApiNetworkError) throw new TokenCommandError(`cannot reach the Kneeboard API at ${flags.api} (${describeCause(err.cause)})`);
    if (err instanceof ApiHttpError) {
      const hint =
        err.status === 401
          ? ' (give an admin token with --token or KNEEBOARD_TOKEN)'
          : err.body?.field === 'querystring.confirm'
            ? ' (in this command: --confirm KNEEBOARD_ADMIN_TOKEN)'
            : '';
      throw new TokenCommandError(`${method} ${path}: ${describeStatus(err.status, err.body)}${hint}`);
    }
    if (err instanceof ApiShapeError) throw new TokenCommandError(err.message);
    throw err;
  }
}

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

function table(tokens: TokenInfo[]): string {
  const rows = [['id', 'scope', 'service', 'name', 'created', 'expires', 'revoked'], ...tokens.map((t) => [t.id, t.scope, t.service ?? '*', t.name, when(t.created_at), when(t.expires_at), when(t.revoked_at)])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return `${rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')}\n`;
}

/** Runs a subcommand; a refusal or an unreachable API is exit 1 with the reason on stderr. */
const action =
  <A extends unknown[]>(job: (...args: A) => Promise<void>) =>
  async (...args: A) => {
    try {
      await job(...args);
    } catch (err) {
      if (!(err instanceof TokenCommandError)) throw err;
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = EXIT.failed;
    }
  };

const common = (c: Command) => c.option('--api <url>', 'Kneeboard API', DEFAULT_API_URL).addOption(tokenOption()).option('--json', 'print JSON');

/** `kneeboard token create|list|revoke`: manage the API's tokens with an admin token. */
export function tokenCommand(): Command {
  const token = new Command('token').description('create, list and revoke Kneeboard API tokens (needs an admin token once tokens are required)');

  token.addCommand(
    common(
      new Command('create')
        .description('create a token; its secret is printed once')
        .requiredOption('--name <name>', 'what the token is for, e.g. "ci load agents"')
        .addOption(new Option('--scope <scope>', 'ingest (agents), write (people and scripts), admin, or share (a read-only link to --run runs)').choices(TokenScope.options).default('ingest'))
        .option('--service <name>', 'limit its writes to runs of this service')
        .option('--run <id>', 'share scope: a run the link shows (repeat for the runs of a comparison)', (v: string, prev: string[] = []) => [...prev, v])
        .addOption(new Option('--expires-in <time>', 'lifetime, e.g. 30d, 12h (default: until revoked)').argParser(parseLifetime)),
    ).action(
      action(async (flags: ApiFlags & { name: string; scope: CreateTokenInput['scope']; service?: string; run?: string[]; expiresIn?: number }) => {
        const body = CreateTokenBody.safeParse({ name: flags.name, scope: flags.scope, service: flags.service, runs: flags.run, expires_at: flags.expiresIn === undefined ? undefined : Date.now() + flags.expiresIn });
        if (!body.success) {
          process.stderr.write(`error: ${body.error.issues.map((i) => `--${String(i.path[0] ?? 'name').replace('expires_at', 'expires-in').replace('runs', 'run')}: ${i.message}`).join('; ')}\n`);
          process.exitCode = EXIT.usage;
          return;
        }
        const created = await tokenCall(flags, ENDPOINTS.createToken, { body: body.data });
        if (flags.json) process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
        else {
          process.stdout.write(`${created.token}\n`);
          process.stderr.write(`token ${created.id} (${created.scope}${created.service ? `, service ${created.service}` : ''}) created; the secret above is not shown again\n`);
          if (created.scope === 'share') process.stderr.write(`share it as ?share=<token> on the runs' API URLs (curve.svg, compare.svg, compare.md …) or as a bearer token\n`);
        }
      }),
    ),
  );

  token.addCommand(
    common(new Command('list').description('list tokens (ids, scopes, services; never secrets)')).action(
      action(async (flags: ApiFlags) => {
        const { tokens } = await tokenCall(flags, ENDPOINTS.listTokens);
        process.stdout.write(flags.json ? `${JSON.stringify(tokens, null, 2)}\n` : table(tokens));
      }),
    ),
  );

  token.addCommand(
    common(
      new Command('revoke')
        .description('revoke a token by its id (see list); it stops working at once')
        .argument('<id>', 'the token id')
        // The API refuses env_admin without it: that token locks everyone using it out, and a restart does not bring it back.
        .option('--confirm <name>', 'required to revoke env_admin, the token KNEEBOARD_ADMIN_TOKEN sets: --confirm KNEEBOARD_ADMIN_TOKEN (a new value of it, and a restart, recovers)'),
    ).action(
      action(async (id: string, flags: ApiFlags & { confirm?: string }) => {
        const revoked = await tokenCall(flags, ENDPOINTS.revokeToken, { params: { id }, query: { confirm: flags.confirm } });
        process.stdout.write(flags.json ? `${JSON.stringify(revoked, null, 2)}\n` : `revoked ${revoked.id} (${revoked.name})\n`);
      }),
    ),
  );
  return token;
}

/** `30d`, `12h`, `90m`, or the sweep's durations (`10s`); days are what tokens are usually given. */
function parseLifetime(value: string): number {
  const days = /^(\d+(?:\.\d+)?)d$/.exec(value.trim());
  return days ? Number(days[1]) * 86_400_000 : parseDuration(value);
}
