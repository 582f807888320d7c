import { MessageCatalogue, type Model } from '@ninepoint/spec';

/** The catalogue as the server fills it (see `MessageCatalogue`). */
export { MessageCatalogue as Catalogue, type MessageParams } from '@ninepoint/spec';

const catalogues = new WeakMap<Model, MessageCatalogue>();

/** The model's catalogue, made once per model. */
export function catalogueOf(model: Model): MessageCatalogue {
  let catalogue = catalogues.get(model);
  if (!catalogue) {
    catalogue = new MessageCatalogue(model);
    catalogues.set(model, catalogue);
  }
  return catalogue;
}
