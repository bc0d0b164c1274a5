type Json = Record<string, unknown>;

/**
 * What a person submits in a modal the app opened: each text input with the value typed in
 * `values` (by custom id) or, when left alone, the value it was prefilled with, in the modal's own
 * structure (labels, or deprecated action rows). Throws what Discord's client would not let through:
 * an unknown field, an empty required one, a value out of its length bounds.
 */
export function fillModal(modal: Json, values: Record<string, string>): Json[] {
  const known = new Set<string>();
  const fill = (input: Json): Json => {
    const customId = String(input.custom_id);
    known.add(customId);
    const value = values[customId] ?? (typeof input.value === 'string' ? input.value : '');
    const min = typeof input.min_length === 'number' ? input.min_length : 0;
    const max = typeof input.max_length === 'number' ? input.max_length : 4000;
    if (input.required !== false && value === '') throw new Error(`the modal's field ${customId} is required`);
    if (value !== '' && (value.length < min || value.length > max)) {
      throw new Error(`the modal's field ${customId} takes ${min} to ${max} characters`);
    }
    return { type: 4, ...(input.id === undefined ? {} : { id: input.id }), custom_id: customId, value };
  };
  const parts = Array.isArray(modal.components) ? (modal.components as Json[]) : [];
  const submitted = parts.map((part): Json => {
    if (part.type === 18) return { type: 18, id: part.id, component: fill((part.component ?? {}) as Json) };
    const inputs = Array.isArray(part.components) ? (part.components as Json[]) : [];
    return { type: 1, id: part.id, components: inputs.map(fill) };
  });
  const unknown = Object.keys(values).filter((id) => !known.has(id));
  if (unknown.length > 0) throw new Error(`the modal has no field ${unknown.join(', ')}`);
  return submitted;
}
