import type { Model } from '@ninepoint/spec';
import type { Me } from '../api/session.ts';

const seen = new WeakMap<Me, WeakMap<Model, Model>>();

/**
 * The model as the signed-in user sees it: each entity with only the fields point 6 lets them
 * read (`read except (speaker)`; `readFields` of `/api/auth/me`). The API never sends the others,
 * so screens drawn from this model have no column, detail row, filter, sort or export column for
 * them. The same object for the same model and user, so memoised screens keep their caches.
 * Checks that run the spec's rules need the whole model (their expressions may name hidden fields).
 */
export function visibleModel(model: Model, me: Me): Model {
  let byModel = seen.get(me);
  if (!byModel) {
    byModel = new WeakMap();
    seen.set(me, byModel);
  }
  const known = byModel.get(model);
  if (known) return known;
  const hides = model.entities.some((e) => (me.access[e.name]?.readFields ?? null) !== null);
  const visible: Model = !hides
    ? model
    : {
        ...model,
        entities: model.entities.map((entity) => {
          const readable = me.access[entity.name]?.readFields ?? null;
          return readable === null
            ? entity
            : { ...entity, fields: entity.fields.filter((f) => readable.includes(f.name)) };
        }),
      };
  byModel.set(model, visible);
  return visible;
}
