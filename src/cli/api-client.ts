// Builds the API client from the settings: base URL and key (env or key file), stopped by SIGINT/SIGTERM.
import { createApiClient, type ApiClient } from '../api/index.js';
import { syncApiFrom } from '../sync/api-port.js';
import type { SyncApi } from '../sync/run.js';
import type { CommandContext } from './context.js';
import { manifestLister } from '../sync/manifest.js';
import type { ManifestLister } from '../journal/confirm.js';
import { readApiKey, requireBaseUrl } from './settings.js';

export function createClient(ctx: CommandContext): ApiClient {
  const { apiKeyFile } = ctx.settings;
  const keySource = apiKeyFile === undefined ? 'GEX_API_KEY' : `the key file ${apiKeyFile} (--api-key-file)`;
  return createApiClient({
    baseUrl: requireBaseUrl(ctx.settings),
    apiKey: readApiKey(ctx.settings, process.env, (message) => ctx.out.warn(message)),
    signal: ctx.signal,
    userAgent: 'gexwh/0.1',
    keySource,
    callBudgetMs: ctx.settings.apiTimeoutSeconds * 1000,
  });
}

export function connectApi(ctx: CommandContext): { client: ApiClient; api: SyncApi; close: () => Promise<void> } {
  const client = createClient(ctx);
  return { client, api: syncApiFrom(client), close: () => client.close() };
}

/**
 * The API's manifest, to check a journal's claims against, when a key and a base URL are configured
 * (a listing is a request, never a credit); undefined otherwise. `close` ends its client.
 */
export function optionalManifestLister(ctx: CommandContext): { list: ManifestLister; close: () => Promise<void> } | undefined {
  const keyGiven = ctx.settings.apiKeyFile !== undefined || (process.env.GEX_API_KEY ?? '').trim() !== '';
  if (!keyGiven || ctx.settings.baseUrl === undefined) return undefined;
  const { api, close } = connectApi(ctx);
  return { list: manifestLister(api.manifestPage), close };
}
