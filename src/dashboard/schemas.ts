import { Type } from 'typebox';

export const Credentials = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const Id = Type.Object({ id: Type.String({ format: 'uuid' }) });
