import type { Model } from './model.ts';

/**
 * The model as JSON without its source spans and lines: two specs with the same key run the same
 * app. A blank line or a reflowed table moves every span after it and nothing else, and
 * `ninepoint dev` need not rebuild the app for that. (A refusal's spec line may then name where
 * its words were: the Studio's "why?" finds them by their words, see the web app's `locate.ts`.)
 */
export function behaviourKey(model: Model): string {
  return JSON.stringify(model, (key, value: unknown) =>
    key === 'span' || key.endsWith('Span') || key === 'lines' ? undefined : value,
  );
}
