import type { Model } from '@ninepoint/spec';
import { useMe } from '../api/session.ts';
import { Failure, Loading, NotAllowed } from '../app/pages.tsx';
import { UsersPage } from './UsersPage.tsx';

/** `/users`: the Users screen for those whose roles manage people; others are told plainly. */
export function UsersRoute({ model }: { model: Model }) {
  const me = useMe();
  if (me.isPending) return <Loading what="Loading the users" />;
  if (me.isError) return <Failure error={me.error} retry={() => void me.refetch()} />;
  if (me.data.user === null) return <NotAllowed reason="sign-in" />;
  if (!me.data.people?.manage) return <NotAllowed reason="forbidden" />;
  return <UsersPage model={model} me={me.data} />;
}
