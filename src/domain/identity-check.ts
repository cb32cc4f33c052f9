/**
 * Consistency of the identity data: every row's shape, and no two rows that contradict each other
 * (two controlling owners of one entity on one day, overlapping listing eras, a listed entity also
 * owned by another, one name pointing at two entities at once, ownership cycles).
 */
import {
  EDGE_RELATIONS,
  ENTITY_KINDS,
  type IdentityData,
  IdentityModel,
  inSpan,
  type OwnershipEdge,
} from './identity.ts';
import { normalizeName } from './names.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const URL_PATTERN = /^https?:\/\/[^\s,]+$/;

interface Span {
  from: string | null;
  to: string | null;
}

export function validDate(value: string | null): boolean {
  if (value === null) return true;
  if (!DATE.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

function spanProblem(what: string, span: Span): string | null {
  if (!validDate(span.from) || !validDate(span.to)) return `${what}: invalid date ${span.from}..${span.to}`;
  if (span.from !== null && span.to !== null && span.from >= span.to)
    return `${what}: from ${span.from} is not before to ${span.to}`;
  return null;
}

export const overlaps = (a: Span, b: Span): boolean =>
  (a.to === null || b.from === null || b.from < a.to) && (b.to === null || a.from === null || a.from < b.to);

/** Every problem found; an empty list when the data is consistent. */
export function checkIdentity(data: IdentityData): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const e of data.entities) {
    if (!/^[a-z0-9_]+$/.test(e.id)) problems.push(`entity id ${JSON.stringify(e.id)} is not snake_case`);
    if (ids.has(e.id)) problems.push(`entity ${e.id} listed twice`);
    ids.add(e.id);
    if (e.name === '') problems.push(`entity ${e.id} has no name`);
    if (!(ENTITY_KINDS as readonly string[]).includes(e.kind))
      problems.push(`entity ${e.id}: unknown kind ${e.kind}`);
    if (e.cik !== null && !/^\d{10}$/.test(e.cik))
      problems.push(`entity ${e.id}: CIK ${e.cik} is not 10 digits`);
  }
  const known = (id: string, what: string) => {
    if (!ids.has(id)) problems.push(`${what}: unknown entity ${id}`);
  };
  for (const l of data.listings) {
    const what = `listing ${l.entityId} ${l.ticker}`;
    known(l.entityId, what);
    if (!/^[A-Z][A-Z0-9.-]{0,9}$/.test(l.ticker)) problems.push(`${what}: malformed ticker`);
    if (l.exchange === '') problems.push(`${what}: no exchange`);
    if (!URL_PATTERN.test(l.source)) problems.push(`${what}: source is not a URL`);
    const span = spanProblem(what, l);
    if (span) problems.push(span);
  }
  for (const e of data.edges) checkEdgeRow(e, known, problems);
  for (const n of data.names) {
    const what = `name ${n.name} (${n.entityId})`;
    known(n.entityId, what);
    if (n.match !== 'exact' && n.match !== 'prefix') problems.push(`${what}: match must be exact or prefix`);
    if (normalizeName(n.name) === '') problems.push(`${what}: empty once normalized`);
    const span = spanProblem(what, n);
    if (span) problems.push(span);
  }
  if (problems.length > 0) return problems;
  return [...contradictions(data), ...cycles(data)];
}

function checkEdgeRow(e: OwnershipEdge, known: (id: string, what: string) => void, problems: string[]): void {
  const what = `edge ${e.child} -> ${e.parent}`;
  known(e.child, what);
  known(e.parent, what);
  if (e.child === e.parent) problems.push(`${what}: owns itself`);
  if (!(EDGE_RELATIONS as readonly string[]).includes(e.relation))
    problems.push(`${what}: unknown relation ${e.relation}`);
  if (e.share !== null && !(e.share > 0 && e.share <= 1))
    problems.push(`${what}: share ${e.share} outside (0, 1]`);
  if ((e.relation === 'joint_venture') !== (e.share !== null)) {
    problems.push(`${what}: a share goes with a joint_venture relation, and only there`);
  }
  if (!URL_PATTERN.test(e.source)) problems.push(`${what}: source is not a URL`);
  const span = spanProblem(what, e);
  if (span) problems.push(span);
}

function contradictions(data: IdentityData): string[] {
  const problems: string[] = [];
  pairs(data.listings, (a, b) => {
    if (a.entityId === b.entityId && overlaps(a, b))
      problems.push(`listings of ${a.entityId} overlap: ${a.ticker} and ${b.ticker}`);
    if (a.ticker === b.ticker && a.entityId !== b.entityId && overlaps(a, b)) {
      problems.push(`ticker ${a.ticker} held by ${a.entityId} and ${b.entityId} at once`);
    }
  });
  pairs(data.edges, (a, b) => {
    if (a.child !== b.child || !overlaps(a, b)) return;
    if (a.share === null || b.share === null)
      problems.push(`${a.child} has two owners at once: ${a.parent} and ${b.parent}`);
  });
  const jvShares = new Map<string, number>();
  for (const e of data.edges)
    if (e.share !== null) jvShares.set(e.child, (jvShares.get(e.child) ?? 0) + e.share);
  for (const [child, total] of jvShares)
    if (total > 1 + 1e-9) problems.push(`joint venture ${child}: shares add up to ${total}`);
  for (const l of data.listings) {
    for (const e of data.edges) {
      if (e.child === l.entityId && e.share === null && overlaps(l, e)) {
        problems.push(`${l.entityId} is listed as ${l.ticker} while owned by ${e.parent}`);
      }
    }
  }
  const named = data.names.map((n) => ({ ...n, norm: normalizeName(n.name) }));
  pairs(named, (a, b) => {
    if (a.norm === b.norm && a.entityId !== b.entityId && overlaps(a, b)) {
      problems.push(`name ${a.norm} means ${a.entityId} and ${b.entityId} at once`);
    }
  });
  return problems;
}

/** Walking up the controlling owners from any entity on any date where something changes never loops. */
function cycles(data: IdentityData): string[] {
  const model = new IdentityModel(data);
  const dates = new Set<string>();
  for (const s of [...data.edges, ...data.listings]) {
    if (s.from) dates.add(s.from);
    if (s.to) dates.add(s.to);
  }
  const problems: string[] = [];
  for (const entity of data.entities) {
    for (const date of dates) {
      const seen = new Set([entity.id]);
      let current = entity.id;
      for (;;) {
        const edge = model.parentEdges(current).find((e) => e.share === null && inSpan(date, e.from, e.to));
        if (edge === undefined) break;
        if (seen.has(edge.parent)) {
          problems.push(`ownership of ${entity.id} loops on ${date}`);
          break;
        }
        seen.add(edge.parent);
        current = edge.parent;
      }
    }
  }
  return problems;
}

function pairs<T>(items: readonly T[], visit: (a: T, b: T) => void): void {
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) visit(items[i] as T, items[j] as T);
  }
}
