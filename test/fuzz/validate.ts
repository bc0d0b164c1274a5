import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchema } from './schema-values.js';

// The MCP SDK's own JSON Schema validator (Ajv with formats): the one an MCP client checks results with.
const ajv = new AjvJsonSchemaValidator();
const compiled = new WeakMap<object, (value: unknown) => string | undefined>();

/** Checks `value` against `schema` (its `$ref`s already resolved): undefined when valid, else what is wrong. */
export function schemaErrors(schema: JsonSchema, value: unknown): string | undefined {
  let check = compiled.get(schema);
  if (!check) {
    const validate = ajv.getValidator(schema);
    check = (input) => {
      const result = validate(input);
      return result.valid ? undefined : (result.errorMessage ?? 'invalid');
    };
    compiled.set(schema, check);
  }
  return check(value);
}
