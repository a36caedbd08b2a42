// Adapts the API client to what the sync needs (SyncApi). One rule lives here: a download retried
// after a failed verification reuses the same presigned link while it is valid, so a corrupted body
// costs no second credit; only an expired link is replaced (one credit, counted).
import { LinkExpiredError, QuotaExceededError, type ApiClient, type FileLink } from '../api/index.js';
import { UnsafeResponseError } from '../errors.js';
import { PaidDownloadError, type DownloadResult, type QuotaStop } from './fetch.js';
import { historyLevelsFetcherFrom } from './fill-levels.js';
import type { PlannedFile } from './plan.js';
import type { SyncApi } from './run.js';
import type { Market } from '../time/sessions.js';

export function syncApiFrom(client: ApiClient): SyncApi {
  const links = new Map<string, FileLink>();

  async function download(file: PlannedFile, tempPath: string, signal: AbortSignal): Promise<DownloadResult> {
    const key = `${file.exchange}|${file.symbol}|${file.sessionDate}|${file.file}|${file.sha256}`;
    const options = { signal, expectedBytes: file.bytes, maxBytes: file.bytes };
    let creditsSpent = 0;
    const newLink = async () => {
      let link: FileLink;
      try {
        link = await client.requestFileLink(file.exchange, file.symbol, file.sessionDate, file.file);
      } catch (error) {
        // An unsafe Location is refused only after the 302 arrived, and the 302 is what is charged.
        if (error instanceof UnsafeResponseError) creditsSpent++;
        throw error;
      }
      creditsSpent++;
      links.set(key, link);
      return link;
    };
    try {
      const link = links.get(key) ?? (await newLink());
      const result = await downloadOrRenew(link);
      return { ...result, creditsSpent };
    } catch (error) {
      // A paid link whose file never arrived still cost its credit: report it with the failure.
      throw creditsSpent > 0 ? new PaidDownloadError(creditsSpent, error) : error;
    }

    async function downloadOrRenew(first: FileLink) {
      try {
        return await client.downloadToFile(first, tempPath, options);
      } catch (error) {
        if (!(error instanceof LinkExpiredError)) throw error;
        return client.downloadToFile(await newLink(), tempPath, options);
      }
    }
  }

  return {
    async me() {
      const { data } = await client.me();
      const files = data.quota.history_files;
      return {
        markets: data.markets.filter((m): m is Market => m === 'crypto' || m === 'tradfi'),
        creditsLimit: files.limit,
        creditsRemaining: files.limit === 0 ? null : (files.remaining ?? null),
        ...(files.reset ? { creditsReset: String(files.reset) } : {}),
      };
    },
    async coverage() {
      return (await client.coverage()).data;
    },
    async manifestPage(exchange, symbol, window) {
      return (await client.historyFiles(exchange, symbol, window)).data;
    },
    download,
    historyLevels: historyLevelsFetcherFrom(client),
    quotaStopOf(error) {
      if (!(error instanceof QuotaExceededError)) return undefined;
      const stop: QuotaStop = { bucket: error.bucket };
      if (error.resetAt) stop.resetAt = error.resetAt.toISOString();
      return stop;
    },
    requestsSpent: () => client.spent().requests,
  };
}
