import type { Model, Screen } from '@ninepoint/spec';
import { createContext, useContext } from 'react';
import type { Me } from '../api/session.ts';

/** What every screen gets: the model, who is signed in, and the screen being shown. */
export interface ScreenProps {
  model: Model;
  me: Me;
  screen: Screen;
}

/** The checked model, loaded once before the router starts. */
export const ModelContext = createContext<Model | null>(null);

export function useModelContext(): Model {
  const model = useContext(ModelContext);
  if (!model) throw new Error('useModelContext needs the app’s ModelContext provider.');
  return model;
}
