import type { Model, Screen } from '@ninepoint/spec';
import { useMe } from '../api/session.ts';
import { visibleModel } from '../records/visible-model.ts';
import { Board } from '../screens/Board.tsx';
import { Dashboard } from '../screens/Dashboard.tsx';
import { Detail } from '../screens/Detail.tsx';
import { Form } from '../screens/Form.tsx';
import { Home } from '../screens/Home.tsx';
import { List } from '../screens/List.tsx';
import { Failure, Loading, NotAllowed } from './pages.tsx';
import { refusal } from './screens.ts';

/** One screen of point 2: shown when its `who` and point 6 let the user open it, else a clear page why not. */
export function ScreenView({ model, screen }: { model: Model; screen: Screen }) {
  const me = useMe();
  if (me.isPending) return <Loading />;
  if (me.isError) return <Failure error={me.error} retry={() => void me.refetch()} />;
  const reason = refusal(screen, me.data);
  if (reason) return <NotAllowed reason={reason} />;
  // Screens draw only the fields the user may read: the API sends no others.
  const props = { model: visibleModel(model, me.data), me: me.data, screen };
  switch (screen.kind) {
    case 'home':
      return <Home {...props} />;
    case 'list':
      return <List {...props} />;
    case 'detail':
      return <Detail {...props} />;
    case 'form':
      return <Form {...props} />;
    case 'board':
      return <Board {...props} />;
    case 'dashboard':
      return <Dashboard {...props} />;
  }
}
