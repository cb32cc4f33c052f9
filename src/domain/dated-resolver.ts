/**
 * The resolver on a date: a recipient resolves to the entity its name identifies, then to whoever
 * owned that entity on the award (or announcement) date and the ticker that owner traded under then.
 * Names the identity data knows (data/identity/names.csv) come first; any other name goes through the
 * undated resolver, whose ticker is then moved back to that registrant's listing on the date (Leidos
 * traded as SAI before 2013-09-27; Booz Allen was not public before 2010-11-17). A ticker the identity
 * data does not know is kept as the undated resolver gives it.
 */
import { createHash } from 'node:crypto';
import {
  type IdentityData,
  type IdentityEntity,
  type IdentityModel,
  type IdentityName,
  inSpan,
  type JointVentureParent,
  type NoTickerReason,
  type OwnerAtDate,
} from './identity.ts';
import { nameTokens, normalizeName } from './names.ts';
import type { Resolution, ResolveInput, Resolver } from './resolver.ts';

/**
 * Bumped when the resolution logic changes; the identity data's digest is appended to it. pit-2: a
 * recipient identified but owned by no listed company that day keeps how it was identified (its
 * `match_method`), as GET /contracts/{id} serves it.
 */
export const RESOLVER_LOGIC_VERSION = 'pit-2';

export const DATE_BASES = ['award_date', 'announcement_date'] as const;
export type DateBasis = (typeof DATE_BASES)[number];

export interface DatedInput extends ResolveInput {
  date: string;
  basis: DateBasis;
}

/** How the entity was found: a curated identity name, or the undated resolver's ticker mapped back in time. */
export type IdentitySource = 'identity_name' | 'registrant_ticker' | 'undated';

export interface DatedResolution extends Resolution {
  entity: IdentityEntity | null;
  owner: IdentityEntity | null;
  /** The ticker whose shipped price series holds the owner's prices on the date, if any. */
  series: string | null;
  reason: NoTickerReason | null;
  parents: JointVentureParent[];
  asOf: string;
  basis: DateBasis;
  source: IdentitySource;
}

export interface DatedResolver {
  readonly version: string;
  readonly model: IdentityModel;
  resolveAt(input: DatedInput): DatedResolution;
}

const IDENTITY_EXACT_CONFIDENCE = 0.99;
const IDENTITY_PREFIX_CONFIDENCE = 0.95;
const PARENT_FACTOR = 0.96;
/** Words that make a name two companies' venture, not one company's unit. */
const VENTURE_WORDS = new Set(['JV', 'JOINT', 'VENTURE', 'TEAM']);
/** Words after which a name gives its owner. */
const PARENT_WORDS = new Set(['SUBSIDIARY', 'DIVISION', 'UNIT', 'OWNED']);
/** A single-word identity name starting a later part of a name marks a second company from this length. */
const DISTINCT_WORD_LENGTH = 6;
const MAX_NAME_WORDS = 4;
const NORM_CACHE_LIMIT = 100_000;

interface NameHit {
  entityId: string;
  exact: boolean;
}

export function identityVersion(data: IdentityData): string {
  const digest = createHash('sha256').update(JSON.stringify(data)).digest('hex').slice(0, 12);
  return `${RESOLVER_LOGIC_VERSION}-${digest}`;
}

export function buildDatedResolver(base: Resolver, model: IdentityModel): DatedResolver {
  const ventures = new Set(model.data.entities.filter((e) => e.kind === 'joint_venture').map((e) => e.id));
  const sameOwner = (a: string, b: string, date: string): boolean => {
    const owner = model.ownerAt(a, date)?.owner.id;
    return owner !== undefined && owner === model.ownerAt(b, date)?.owner.id;
  };
  const names = new IdentityNames(model.data.names, ventures, sameOwner);
  const version = identityVersion(model.data);

  // Every property named, never `{ ...match, ticker: … }`: on Node 20 an object spread followed by
  // more properties took about 1 µs per property added (10 µs per award, the largest single cost of
  // an import's resolve step; docs/EVALUATION.md, "Ingest at 50,000 awards/s (issue 35)").
  function fromOwner(
    owner: OwnerAtDate,
    match: Resolution,
    input: DatedInput,
    source: IdentitySource,
  ): DatedResolution {
    return {
      ticker: owner.ticker,
      confidence: match.confidence,
      method: match.method,
      nameNorm: match.nameNorm,
      entity: owner.entity,
      owner: owner.owner,
      series: owner.series,
      reason: owner.reason,
      parents: owner.parents,
      asOf: input.date,
      basis: input.basis,
      source,
    };
  }

  // Ingest resolves the same spellings over and over: their normal form is kept (bounded).
  const norms = new Map<string, string>();
  const normalized = (raw: string): string => {
    let norm = norms.get(raw);
    if (norm === undefined) {
      if (norms.size >= NORM_CACHE_LIMIT) norms.clear();
      norm = normalizeName(raw);
      norms.set(raw, norm);
    }
    return norm;
  };

  return {
    version,
    model,
    resolveAt(input) {
      const nameNorm = normalized(input.recipientName);
      const own = names.match(nameNorm, input.date);
      const undated = base.resolve(input);
      const fromParent =
        own === null && undated.method !== 'exact_alias' && undated.method !== 'fuzzy' && input.parentName
          ? names.match(normalized(input.parentName), input.date)
          : null;
      const hit = own ?? fromParent;
      if (hit !== null) {
        const owner = model.ownerAt(hit.entityId, input.date);
        if (owner !== null) {
          const confidence =
            (hit.exact ? IDENTITY_EXACT_CONFIDENCE : IDENTITY_PREFIX_CONFIDENCE) * (own ? 1 : PARENT_FACTOR);
          const method = own ? 'exact_alias' : 'parent_alias';
          return fromOwner(
            owner,
            { ticker: null, confidence: round4(confidence), method, nameNorm },
            input,
            'identity_name',
          );
        }
      }
      const registrant = undated.ticker === null ? undefined : model.currentEntityOfTicker(undated.ticker);
      const owner = registrant === undefined ? null : model.ownerAt(registrant.id, input.date);
      if (owner !== null) return fromOwner(owner, undated, input, 'registrant_ticker');
      return {
        ticker: undated.ticker,
        confidence: undated.confidence,
        method: undated.method,
        nameNorm: undated.nameNorm,
        entity: null,
        owner: null,
        series: undated.ticker,
        reason: null,
        parents: [],
        asOf: input.date,
        basis: input.basis,
        source: 'undated',
      };
    },
  };
}

/** The identity names by normalized form, each with its validity span. */
class IdentityNames {
  private readonly byNorm = new Map<string, IdentityName[]>();

  constructor(
    rows: readonly IdentityName[],
    private readonly ventures: ReadonlySet<string>,
    /** Whether two entities had the same owner on a date (a unit named with its parent is one company). */
    private readonly sameOwner: (a: string, b: string, date: string) => boolean,
  ) {
    for (const row of rows) {
      const norm = normalizeName(row.name);
      const list = this.byNorm.get(norm);
      if (list === undefined) this.byNorm.set(norm, [row]);
      else list.push(row);
    }
  }

  /** The longest identity name the input is, or starts with (for prefix names), valid on `date`. */
  match(norm: string, date: string): NameHit | null {
    const tokens = nameTokens(norm);
    for (let k = tokens.length; k > 0; k--) {
      const rows = this.byNorm.get(tokens.slice(0, k).join(' '));
      if (rows === undefined) continue;
      const exact = k === tokens.length;
      const row = rows.find((r) => inSpan(date, r.from, r.to) && (exact || r.match === 'prefix'));
      if (row === undefined) continue;
      if (
        !exact &&
        !this.ventures.has(row.entityId) &&
        this.namesSecondCompany(tokens.slice(k), row.entityId, date)
      )
        return null;
      return { entityId: row.entityId, exact };
    }
    return null;
  }

  /**
   * "RAYTHEON LOCKHEED MARTIN …", "… JV": the rest of the name holds another company's name or a venture
   * word. What follows "SUBSIDIARY", "DIVISION", "UNIT" or "OWNED" names the parent ("SIKORSKY AIRCRAFT
   * CORP A SUBSIDIARY OF UNITED TECHNOLOGIES"), not a partner: it is not looked at; nor is a name of the
   * same owner that day ("UNITED TECHNOLOGIES CORP PRATT AND WHITNEY MILITARY ENGINES").
   */
  private namesSecondCompany(rest: readonly string[], entityId: string, date: string): boolean {
    const end = rest.findIndex((t) => PARENT_WORDS.has(t));
    const own = end < 0 ? rest : rest.slice(0, end);
    for (let i = 0; i < own.length; i++) {
      if (VENTURE_WORDS.has(own[i] ?? '')) return true;
      for (let length = 1; length <= MAX_NAME_WORDS && i + length <= own.length; length++) {
        const words = own.slice(i, i + length);
        if (length === 1 && (words[0] ?? '').length < DISTINCT_WORD_LENGTH) continue;
        const rows = this.byNorm.get(words.join(' ')) ?? [];
        if (rows.some((r) => inSpan(date, r.from, r.to) && !this.sameOwner(entityId, r.entityId, date)))
          return true;
      }
    }
    return false;
  }
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
