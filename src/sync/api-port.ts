// Adapts the API client to what the sync needs (SyncApi). One rule lives here: a download retried
// after a failed verification reuses the same presigned link while it is valid, so a corrupted body
// costs no second credit; only an expired link is replaced (one credit, counted, taken from what the
// run's budget has left over after every planned file, else the file is deferred). The stop signal
// never aborts a paid link's download (see fetchFiles): it only keeps new links from being paid for.
import { maxInflatedBytes } from '../api/inflate-meter.js';
import { splitMarkets, type ApiClient, type FileLink } from '../api/index.js';
import { BodyTooLargeError, LinkAnswerLostError, LinkExpiredError, QuotaExceededError, UnsafeResponseError } from '../core/errors.js';
import { usableCoverage } from './coverage.js';
import { BodyMismatchError, OverBudgetError, PaidDownloadError, type DownloadResult, type LinkBudget } from './fetch.js';
import { historyLevelsFetcherFrom } from './fill-levels.js';
import type { SyncApi } from './sync-types.js';
import { fileVersionKey } from '../core/pairs.js';
import type { QuotaStop } from '../api/quota.js';
import type { PlannedFile } from '../core/rows.js';

/** Link requests for one file whose answers may be lost before it gives up (as many as the client's retry policy tries). */
const MAX_LOST_ANSWERS = 5;

export function syncApiFrom(client: ApiClient): SyncApi {
  const links = new Map<string, FileLink>();

  async function download(file: PlannedFile, tempPath: string, stop: AbortSignal, budget: LinkBudget): Promise<DownloadResult> {
    const key = fileVersionKey(file);
    const options = {
      stopRetries: stop,
      expectedBytes: file.bytes,
      maxBytes: file.bytes,
      maxInflatedBytes: maxInflatedBytes(file.rows),
    };
    let creditsSpent = 0;
    const newLink = async () => {
      let link: FileLink;
      for (let lost = 0; ; lost++) {
        try {
          link = await client.requestFileLink(file.exchange, file.symbol, file.sessionDate, file.file, { signal: stop });
          break;
        } catch (error) {
          // An unsafe Location is refused only after the 302 arrived, and the 302 is what is charged.
          if (error instanceof UnsafeResponseError) {
            creditsSpent++;
            await budget.paid(1);
          }
          if (!(error instanceof LinkAnswerLostError)) throw error;
          budget.answerLost();
          if (stop.aborted) throw error;
          if (lost + 1 >= MAX_LOST_ANSWERS) throw new LinkAnswerLostError(`${error.message}; asked ${MAX_LOST_ANSWERS} times, not again`);
          if (!budget.takeExtraCredit()) throw new LinkAnswerLostError(`${error.message}; not asked again: the run's credit budget has no credit left over`);
        }
      }
      creditsSpent++;
      await budget.paid(1);
      links.set(key, link);
      return link;
    };
    try {
      const link = links.get(key) ?? (await newLink());
      const result = await downloadOrRenew(link);
      return { ...result, creditsSpent };
    } catch (thrown) {
      // A body bigger than the manifest says is a broken body, like a corrupted one: retried on this link.
      const error = thrown instanceof BodyTooLargeError ? new BodyMismatchError(thrown.message, { cause: thrown }) : thrown;
      // A paid link whose file never arrived still cost its credit: report it with the failure.
      throw creditsSpent > 0 ? new PaidDownloadError(creditsSpent, error) : error;
    }

    async function downloadOrRenew(first: FileLink) {
      try {
        return await client.downloadToFile(first, tempPath, options);
      } catch (error) {
        if (!(error instanceof LinkExpiredError)) throw error;
        // The plan counted one credit for this file: a renewal is bought only with one left over.
        if (!budget.takeExtraCredit()) {
          throw new OverBudgetError(`its link expired and a new one would pass the run's credit budget; deferred to the next run`);
        }
        return client.downloadToFile(await newLink(), tempPath, options);
      }
    }
  }

  return {
    async me() {
      const { data } = await client.me();
      const files = data.quota.history_files;
      const { known, unknown } = splitMarkets(data.markets);
      return {
        markets: known,
        ...(unknown.length > 0 ? { unknownMarkets: unknown } : {}),
        creditsLimit: files.limit,
        creditsRemaining: files.limit === 0 ? null : (files.remaining ?? null),
        ...(files.reset ? { creditsReset: String(files.reset) } : {}),
      };
    },
    async coverage() {
      const { data, rejected } = await client.coverage();
      return usableCoverage(data, rejected);
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
