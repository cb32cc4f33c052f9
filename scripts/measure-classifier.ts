/**
 * Classifier accuracy on PSC-labelled awards (see src/evaluation/classifier-eval.ts).
 *
 *   node --import tsx scripts/measure-classifier.ts [--split test|dev|all] [--errors N]
 *
 * Labels come from the PSC of the shipped awards JSON (238 rows) and FY2006 data feed (999 rows).
 * The test half is held out: rules were tuned looking at the dev half only. `--errors` lists that
 * many misclassified records — of the dev half unless `--split` says otherwise.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CLASSIFIER_VERSION } from '../src/domain/classifier.ts';
import {
  type ClassifierReport,
  evaluateClassifier,
  type InputMode,
  type LabelledAward,
  labelledAwards,
  splitDevTest,
} from '../src/evaluation/classifier-eval.ts';
import { DEMO_DATA_DIR } from '../src/pipeline/seed.ts';
import { parseContractAwardsJson, parseLegacyDatafeedCsv } from '../src/sources/awards.ts';
import { readTextFile } from '../src/sources/files.ts';

const { values } = parseArgs({
  options: {
    split: { type: 'string', default: 'test' },
    errors: { type: 'string', default: '0' },
    data: { type: 'string', default: DEMO_DATA_DIR },
  },
});
const errorCount = Number(values.errors);

const [jsonText, feedText] = await Promise.all([
  readTextFile(join(values.data, 'awards/usaspending_contract_awards.json.gz')),
  readTextFile(join(values.data, 'awards/usaspending_legacy_datafeed_dod_fy2006_sample999.csv.gz')),
]);
const json = labelledAwards(parseContractAwardsJson(jsonText).awards, 'contract_awards_2007_2024');
const feed = labelledAwards(parseLegacyDatafeedCsv(feedText).awards, 'legacy_datafeed_dod_fy2006');
const all = [...json, ...feed];
const { dev, test } = splitDevTest(all);

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};
const pct = (x: number | null): string => (x === null ? '–' : `${(100 * x).toFixed(1)}%`);
const bySource = (rs: readonly LabelledAward[], source: string) => rs.filter((r) => r.source === source);

out(`# Classifier ${CLASSIFIER_VERSION} against PSC-derived labels`);
out();
out(
  `labelled records (description + PSC that maps to a label): ${all.length} — awards JSON ${json.length}, ` +
    `FY2006 feed ${feed.length}; dev ${dev.length} (JSON ${bySource(dev, json[0]?.source ?? '').length}), ` +
    `test ${test.length} (JSON ${bySource(test, json[0]?.source ?? '').length})`,
);
out();

const modes: [InputMode, string][] = [
  ['description', 'description only'],
  ['description_naics', 'description + NAICS'],
  ['all_codes', 'description + NAICS + PSC (sanity: the PSC should decide)'],
];
const sets: [string, LabelledAward[]][] = [
  ['test (held out)', test],
  ['test, awards JSON', bySource(test, 'contract_awards_2007_2024')],
  ['test, FY2006 feed', bySource(test, 'legacy_datafeed_dod_fy2006')],
  ['dev (tuned on)', dev],
  ['all', all],
];

out('| set | n | description only | + NAICS | + NAICS + PSC | majority-label baseline |');
out('|---|---|---|---|---|---|');
for (const [name, records] of sets) {
  const r = modes.map(([m]) => evaluateClassifier(records, m));
  const [d, dn, all3] = r;
  out(
    `| ${name} | ${records.length} | ${pct(d?.accuracy ?? 0)} | ${pct(dn?.accuracy ?? 0)} | ${pct(all3?.accuracy ?? 0)} | ` +
      `${pct(d?.majorityAccuracy ?? 0)} (${d?.majorityLabel}) |`,
  );
}
out();

const chosen = values.split === 'dev' ? dev : values.split === 'all' ? all : test;
const report = evaluateClassifier(chosen, 'description');
printPerLabel(`per label, description only, ${values.split} set`, report);
printConfusions(report);

if (errorCount > 0) {
  const errorSet = values.split === 'test' ? dev : chosen;
  const errs = evaluateClassifier(errorSet, 'description').errors.slice(0, errorCount);
  out(`## first ${errs.length} errors (${values.split === 'test' ? 'dev' : values.split} set)`);
  out();
  for (const { record, predicted } of errs) {
    out(`- [${record.psc} → ${record.gold}] predicted ${predicted}: ${record.description.slice(0, 140)}`);
  }
}

function printPerLabel(title: string, r: ClassifierReport): void {
  out(`## ${title}: accuracy ${pct(r.accuracy)} (${r.correct}/${r.n})`);
  out();
  out('| label | support | predicted | precision | recall |');
  out('|---|---|---|---|---|');
  for (const l of r.perLabel) {
    out(`| ${l.label} | ${l.support} | ${l.predicted} | ${pct(l.precision)} | ${pct(l.recall)} |`);
  }
  out();
}

function printConfusions(r: ClassifierReport): void {
  out('## most frequent confusions (gold → predicted)');
  out();
  for (const c of r.confusions.slice(0, 12)) out(`- ${c.gold} → ${c.predicted}: ${c.count}`);
  out();
}
