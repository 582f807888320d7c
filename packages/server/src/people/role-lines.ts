import { type Model, type SpecLine, specLine } from '@ninepoint/spec';

/**
 * Where point 6 writes what people with these roles may do with accounts (the `people` column of
 * a role's row), for a refusal to name: the row of their first role the table has, else point
 * 6's heading. Compiled once.
 */
export function roleLines(
  model: Pick<Model, 'roles' | 'points' | 'lines'>,
): (roles: readonly string[]) => SpecLine | null {
  const rows = new Map(model.roles.map((r) => [r.name, specLine(model, r.span)]));
  const heading = specLine(model, model.points.find((p) => p.key === 'roles')?.span);
  return (roles) => {
    for (const role of roles) {
      const line = rows.get(role);
      if (line) return line;
    }
    return heading;
  };
}
