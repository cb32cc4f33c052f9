import { studyEngineVersion } from '../evaluation/evidence.ts';
import type { Db } from '../store/db.ts';
import { type StoredStudy, saveEventStudy, scoredContracts, storedEventStudy } from '../store/evaluation.ts';

/** Runs the study of one engine version now and stores its summary (what `evaluate` also does). */
export async function recordEventStudy(
  db: Db,
  engine: string,
  version: string,
  now: Date,
): Promise<StoredStudy> {
  const { contracts, summary } = await studyEngineVersion(db, engine, version);
  const study = {
    engine,
    version,
    computedAt: now.toISOString(),
    contracts,
    summary: JSON.stringify(summary),
  };
  await saveEventStudy(db, study);
  return study;
}

const hasPlacebo = (summary: string): boolean => 'placebo' in (JSON.parse(summary) as object);

/** Studies being computed in this process, by `engine@version`: concurrent first requests share one. */
const running = new Map<string, Promise<StoredStudy>>();

/**
 * The stored study of an engine version, computed and stored on the first request for a version that
 * has none (about a second on the demo data), with how many contracts the version has scored since:
 * a study is not redone behind the reader's back; `market-intel evaluate` redoes it.
 */
export async function eventStudy(
  db: Db,
  engine: string,
  version: string,
  now: () => Date,
): Promise<{ study: StoredStudy; contractsNow: number }> {
  const key = `${engine}@${version}`;
  let study = await storedEventStudy(db, engine, version);
  // A study stored before placebos were part of it is redone once: the page states the verdict.
  if (!study || !hasPlacebo(study.summary)) {
    let pending = running.get(key);
    if (!pending) {
      pending = recordEventStudy(db, engine, version, now()).finally(() => running.delete(key));
      running.set(key, pending);
    }
    study = await pending;
  }
  return { study, contractsNow: await scoredContracts(db, engine, version) };
}
