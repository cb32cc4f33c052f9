import { Type } from 'typebox';
import { KEY_PREFIX } from '../../domain/keys.ts';
import { type KeyMode as KeyModeName, PLANS, SCOPES } from '../../domain/plans.ts';
import { Cursor, Limit, Nullable, Offset, Pagination, Query, StringEnum, Text } from './common.ts';

export const Plan = StringEnum(PLANS);
export const Scope = StringEnum(SCOPES);
/** live keys count against the plan's limit; test keys have their own small one. */
export const KeyMode = StringEnum(Object.keys(KEY_PREFIX) as KeyModeName[]);

export const User = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  plan: Plan,
  is_admin: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
});

export const ApiKey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  user_id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  mode: KeyMode,
  scopes: Type.Array(Scope),
  display_prefix: Type.String({ description: 'First 12 characters of the key, for recognising it.' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
});

export const UserResponse = Type.Object({ user: User });
export const UserList = Type.Object({ data: Type.Array(User), pagination: Pagination });

export const UserQuery = Query({
  q: Type.Optional(
    Text({
      maxLength: 254,
      description: 'Part of the email, case-insensitive; `%` and `_` match themselves.',
    }),
  ),
  plan: Type.Optional(StringEnum(PLANS, { description: 'Only users on this plan.' })),
  limit: Limit(200, 50),
  offset: Offset,
  cursor: Type.Optional(Cursor),
});
export const KeyResponse = Type.Object({ key: ApiKey });
export const KeyList = Type.Object({ data: Type.Array(ApiKey), pagination: Pagination });
export const NewKeyResponse = Type.Object({
  key: ApiKey,
  secret: Type.String({ description: 'The raw key. Shown once: only its sha256 hash is stored.' }),
});

export const NewUserBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    plan: Type.Optional(StringEnum(PLANS, { description: 'Default free.' })),
    password: Type.Optional(Type.String({ minLength: 8, maxLength: 200 })),
    admin: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const PlanBody = Type.Object({ plan: StringEnum(PLANS) }, { additionalProperties: false });

export const NewKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f]*$' }),
    scopes: Type.Array(StringEnum(SCOPES), { minItems: 1, maxItems: 3 }),
    mode: StringEnum(Object.keys(KEY_PREFIX) as KeyModeName[]),
  },
  { additionalProperties: false },
);

export const UsageWindow = StringEnum(['1h', '24h', '7d', '30d'] as const, {
  description: '1h: minute buckets; 24h (default): hourly; 7d and 30d: daily.',
});

export const Usage = Type.Object({
  key_id: Type.String({ format: 'uuid' }),
  window: UsageWindow,
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  bucket: StringEnum(['minute', 'hour', 'day'] as const),
  totals: Type.Object({ requests: Type.Integer(), errors: Type.Integer() }),
  buckets: Type.Array(
    Type.Object({
      start: Type.String({ format: 'date-time' }),
      requests: Type.Integer(),
      errors: Type.Integer(),
    }),
  ),
});
