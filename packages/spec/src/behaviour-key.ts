import type { Model } from './model.ts';

/**
 * The model as JSON without its source spans: two specs with the same key run the same app. A
 * blank line or a reflowed table moves every span after it and nothing else, and `ninepoint dev`
 * need not rebuild the app for that.
 */
export function behaviourKey(model: Model): string {
  return JSON.stringify(model, (key, value: unknown) => (key === 'span' || key.endsWith('Span') ? undefined : value));
}
