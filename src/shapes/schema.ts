/** Schema helpers shared by the records (src/shapes) and the HTTP layer's own schemas. */
import { type TSchema, Type } from 'typebox';

export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

/** A string enum that shows as `enum` in OpenAPI and types as the literal union. */
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
