/**
 * A WHERE clause made of the filters a caller gave, and nothing else: each combination of
 * filters is its own short SQL text, planned for the indexes it can use. A condition is
 * written with `?` where its values go; they become $1, $2 ... in the order added, so the
 * values never enter the SQL text.
 */
export interface WhereBuilder {
  /** Adds a condition (ANDed with the others); its `?` take `values`, one each, in order. */
  and(condition: string, ...values: unknown[]): WhereBuilder;
  /** A placeholder for a value used outside the WHERE (a LIMIT): `$n`. */
  param(value: unknown): string;
  /** `WHERE a AND b`, or '' when no condition was added. */
  readonly clause: string;
  /** The values, in placeholder order. */
  readonly params: unknown[];
}

export function whereBuilder(): WhereBuilder {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const builder: WhereBuilder = {
    and(condition, ...values) {
      const pieces = condition.split('?');
      // A `?` of SQL's own (the jsonb operator) would be taken for a placeholder: refuse it.
      if (pieces.length - 1 !== values.length) {
        throw new Error(`where: ${values.length} value(s) for ${pieces.length - 1} placeholder(s) in "${condition}"`);
      }
      let sql = pieces[0] as string;
      for (let i = 0; i < values.length; i++) sql += `${builder.param(values[i])}${pieces[i + 1]}`;
      conditions.push(sql);
      return builder;
    },
    param(value) {
      params.push(value);
      return `$${params.length}`;
    },
    get clause() {
      return conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    },
    params,
  };
  return builder;
}
