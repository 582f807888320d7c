import type { EditorView } from '@codemirror/view';
import {
  Alert,
  Badge,
  Box,
  Button,
  Group,
  Kbd,
  Loader,
  Switch,
  Tabs,
  Text,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { type InsertablePoint, insertDerived, permissionMatrix, pointProgress, specDiagrams } from '@ninepoint/spec';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { saveSource, useDevEvents, useStudioFile } from '../api/dev.ts';
import { useModelContext } from '../app/context.ts';
import { Failure } from '../app/pages.tsx';
import { ApplyStatus } from './ApplyStatus.tsx';
import { DiagramsPanel } from './DiagramsPanel.tsx';
import { draftStore, fileText, isDirty, newerStatus, oneStatus, withFile } from './draft.ts';
import { applyFix, Editor, insertRow, jumpToLine, moveCursor, replaceText, selectLine } from './Editor.tsx';
import { GuidedAdd } from './GuidedAdd.tsx';
import { outline } from './guided.ts';
import { countProblems, findSpecLine } from './locate.ts';
import { OutlinePanel } from './OutlinePanel.tsx';
import { PermissionsPanel } from './PermissionsPanel.tsx';
import { ProblemsPanel } from './ProblemsPanel.tsx';
import { ProgressPanel } from './ProgressPanel.tsx';
import { NoStudio } from './StudioUnavailable.tsx';
import { useCheck } from './use-check.ts';

type Tab = 'problems' | 'outline' | 'diagrams' | 'permissions' | 'progress';

/** The tab open when the page was last left (saving remounts the page: see draft.ts). */
let lastTab: Tab = 'problems';

const HEADER_HEIGHT = 56;

/**
 * The Studio: the spec file in an editor on the left, checked in the browser as you type, and on
 * the right its problems, diagrams, permission matrix and nine-point progress. Saving writes the
 * file; the dev server applies it, and every open page of the app follows.
 */
export default function StudioPage() {
  const model = useModelContext();
  const file = useStudioFile(true);
  const draft = useSyncExternalStore(draftStore.subscribe, draftStore.get);
  const view = useRef<EditorView | null>(null);
  const [tab, setTab] = useState<Tab>(lastTab);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const savingNow = useRef(false);
  const wide = useMediaQuery('(min-width: 62em)', true);
  const [wrap, setWrap] = useState(false);
  const [editorReady, setEditorReady] = useState(false);
  // `?line=12&text=…`: a refusal's "why?" in the app opens the Studio at the spec line behind it.
  const [params] = useSearchParams();
  const wantedLine = Number(params.get('line'));
  const wantedText = params.get('text') ?? undefined;

  // The file as the server read it: the first text, or a newer one saved elsewhere.
  useEffect(() => {
    if (!file.data) return;
    let replace: string | null = null;
    draftStore.update((d) => {
      const next = withFile(d, file.data);
      replace = next.replace;
      return next.draft;
    });
    if (replace !== null && view.current) replaceText(view.current, replace);
  }, [file.data]);

  // Every attempt to apply (saved here or in any editor) is reported; the file may have changed.
  useDevEvents(true, (status) => {
    draftStore.update((d) => ({ ...d, status: newerStatus(d.status, status) }));
    void file.refetch();
  });

  const save = useCallback(async () => {
    const current = draftStore.get();
    if (!current.loaded || savingNow.current) return;
    const text = current.text;
    savingNow.current = true;
    setSaving(true);
    setSaveError(null);
    try {
      const status = await saveSource(fileText(current, text));
      draftStore.update((d) => ({ ...d, disk: text, diskChanged: null, status: newerStatus(d.status, status) }));
    } catch (error) {
      setSaveError((error as ApiError).problem?.detail ?? String(error));
    } finally {
      savingNow.current = false;
      setSaving(false);
    }
  }, []);

  // Ctrl-S / Cmd-S anywhere on the page saves the spec rather than the web page.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') {
        event.preventDefault();
        void save();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [save]);

  useEffect(() => {
    const name = draft.path.split(/[\\/]/).pop() || 'spec';
    document.title = `${isDirty(draft) ? '• ' : ''}Studio · ${name} · ${model.product.name}`;
  }, [draft, model.product.name]);

  const checked = useCheck(draft.text);
  const current = checked.source === draft.text;
  const diagrams = useMemo(() => specDiagrams(checked.result.model), [checked]);
  const matrix = useMemo(() => permissionMatrix(checked.result.model), [checked]);
  const progress = useMemo(() => pointProgress(checked.result.model), [checked]);
  const points = useMemo(() => outline(checked.result.model), [checked]);
  const onChange = useCallback((text: string) => draftStore.update((d) => ({ ...d, text })), []);
  const onReady = useCallback((editor: EditorView | null) => {
    view.current = editor;
    setEditorReady(editor !== null);
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editorReady || !editor || !Number.isInteger(wantedLine) || wantedLine < 1) return;
    const found = findSpecLine(editor.state.doc.toString(), wantedLine, wantedText);
    if (found) selectLine(editor, found.from, found.to);
  }, [editorReady, wantedLine, wantedText]);

  const insert = (point: InsertablePoint) => {
    if (!view.current || !current) return;
    replaceText(view.current, insertDerived(checked.source, checked.result.model, point));
  };

  if (file.isError && (file.error as ApiError).status === 404) return <NoStudio />;
  const status = oneStatus(draft);
  const errors = checked.result.diagnostics.filter((d) => d.severity === 'error').length;
  const problems = checked.result.diagnostics.length;

  const header = (
    <Box
      component="header"
      mih={HEADER_HEIGHT}
      px="md"
      py={wide ? 0 : 'xs'}
      style={{ borderBottom: '1px solid var(--mantine-color-gray-3)', flexShrink: 0, display: 'flex' }}
    >
      {/* On a phone the controls wrap to a second line rather than run off the screen. */}
      <Group
        justify="space-between"
        wrap={wide ? 'nowrap' : 'wrap'}
        gap="sm"
        style={{ flex: 1 }}
        mih={wide ? HEADER_HEIGHT : undefined}
      >
        <Group gap="sm" wrap="nowrap" miw={0}>
          <Title order={1} size="h4">
            Studio
          </Title>
          {/* On a phone the path gives its room to the status (it is in the page's title too). */}
          {wide && (
            <Text ff="monospace" size="sm" c="dimmed" truncate="start" miw={0} title={draft.path}>
              {/* Truncated from the start (right to left): the mark keeps the leading "/" where it belongs. */}
              {`\u200E${draft.path}`}
            </Text>
          )}
          {draft.loaded && (
            <Badge
              color={status.color}
              variant="light"
              style={{ flexShrink: 0 }}
              role="status"
              data-status={status.label}
            >
              {status.label}
            </Badge>
          )}
        </Group>
        <Group gap="sm" wrap={wide ? 'nowrap' : 'wrap'}>
          <GuidedAdd
            source={checked.source}
            model={checked.result.model}
            current={current && editorReady}
            onInsert={(row) => view.current && insertRow(view.current, row)}
          />
          <Switch label="Wrap lines" checked={wrap} onChange={(event) => setWrap(event.currentTarget.checked)} />
          <Button component={Link} to="/" variant="default">
            Open the app
          </Button>
          <Tooltip label={<Kbd size="xs">Ctrl S</Kbd>} withArrow>
            <Button
              onClick={() => void save()}
              loading={saving}
              disabled={!draft.loaded}
              aria-keyshortcuts="Control+S Meta+S"
            >
              Save
            </Button>
          </Tooltip>
        </Group>
      </Group>
    </Box>
  );

  const editorPane = (
    <Box
      component="section"
      aria-label="Spec editor"
      style={{
        flex: wide ? '1 1 56%' : '0 0 60vh',
        minWidth: 0,
        minHeight: 0,
        display: 'flex',
        flexDirection: 'column',
      }}
    >
      {draft.diskChanged !== null && (
        <Alert color="yellow" variant="light" radius={0} py="xs" role="status">
          <Group justify="space-between" gap="xs">
            <Text size="sm">The file changed on disk. Your unsaved edits are kept.</Text>
            <Button
              size="compact-sm"
              variant="default"
              onClick={() => {
                const disk = draft.diskChanged;
                if (disk === null || !view.current) return;
                draftStore.update((d) => ({ ...d, disk, diskChanged: null }));
                replaceText(view.current, disk);
              }}
            >
              Load the file (discard my edits)
            </Button>
          </Group>
        </Alert>
      )}
      <Box style={{ flex: 1, minHeight: 0 }}>
        {draft.loaded ? (
          <Editor
            initial={draft.text}
            checked={checked}
            onChange={onChange}
            onReady={onReady}
            label="Spec source, Markdown"
            wrap={wrap}
          />
        ) : file.isError ? (
          <Box p="md">
            <Failure error={file.error} retry={() => void file.refetch()} />
          </Box>
        ) : (
          <Group p="md" gap="xs" role="status">
            <Loader size="sm" aria-label="Loading the spec" />
            <Text size="sm">Loading the spec…</Text>
          </Group>
        )}
      </Box>
      <Group
        px="md"
        h={32}
        gap="md"
        style={{ borderTop: '1px solid var(--mantine-color-gray-3)', flexShrink: 0 }}
        aria-live="polite"
      >
        <UnstyledButton
          onClick={() => setTab('problems')}
          fz="sm"
          c={errors > 0 ? 'red' : problems > 0 ? undefined : 'teal.9'}
          fw={500}
        >
          {countProblems(checked.result.diagnostics)}
        </UnstyledButton>
        <Text size="xs" c="dimmed">
          Checked as you type · Save applies it to the running app
        </Text>
      </Group>
    </Box>
  );

  const sidePane = (
    <Box
      component="section"
      aria-label="What the spec makes"
      style={{
        flex: wide ? '1 1 44%' : '1 0 auto',
        minWidth: 0,
        minHeight: 0,
        display: 'flex',
        flexDirection: 'column',
        borderLeft: wide ? '1px solid var(--mantine-color-gray-3)' : undefined,
        borderTop: wide ? undefined : '1px solid var(--mantine-color-gray-3)',
        background: 'var(--mantine-color-gray-0)',
      }}
    >
      {(draft.status || saveError) && (
        <Box p="sm" pb={0} style={{ flexShrink: 0, maxHeight: '40%', overflow: 'auto' }}>
          {saveError ? (
            <Alert color="red" title="Not saved" role="alert">
              {saveError}
            </Alert>
          ) : (
            draft.status && <ApplyStatus status={draft.status} />
          )}
        </Box>
      )}
      <Tabs
        value={tab}
        onChange={(value) => {
          const next = (value ?? 'problems') as Tab;
          lastTab = next;
          setTab(next);
        }}
        keepMounted={false}
        style={{ flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' }}
      >
        <Tabs.List px="sm" pt="xs" style={{ flexShrink: 0 }}>
          <Tabs.Tab
            value="problems"
            rightSection={
              problems > 0 ? (
                <Badge size="xs" circle color={errors > 0 ? 'red' : 'yellow'} variant="filled" aria-hidden="true">
                  {problems}
                </Badge>
              ) : null
            }
          >
            Problems
          </Tabs.Tab>
          <Tabs.Tab value="outline">Outline</Tabs.Tab>
          <Tabs.Tab value="diagrams">Diagrams</Tabs.Tab>
          <Tabs.Tab value="permissions">Permissions</Tabs.Tab>
          <Tabs.Tab value="progress">Progress</Tabs.Tab>
        </Tabs.List>
        <Box style={{ flex: 1, minHeight: 0, overflow: 'auto', background: 'var(--mantine-color-body)' }}>
          <Tabs.Panel value="problems">
            <ProblemsPanel
              located={checked.located}
              current={current}
              onGo={(offset) => view.current && moveCursor(view.current, offset)}
              onFix={(_, fix) => view.current && applyFix(view.current, fix, checked.source.slice(fix.from, fix.to))}
            />
          </Tabs.Panel>
          <Tabs.Panel value="outline">
            <OutlinePanel entries={points} onGo={(line) => view.current && jumpToLine(view.current, line)} />
          </Tabs.Panel>
          <Tabs.Panel value="diagrams">
            <DiagramsPanel diagrams={diagrams} />
          </Tabs.Panel>
          <Tabs.Panel value="permissions">
            <PermissionsPanel matrix={matrix} roles={checked.result.model.roles} />
          </Tabs.Panel>
          <Tabs.Panel value="progress">
            <ProgressPanel points={progress} onInsert={insert} />
          </Tabs.Panel>
        </Box>
      </Tabs>
    </Box>
  );

  return (
    <Box style={{ height: '100dvh', display: 'flex', flexDirection: 'column' }}>
      {header}
      <Box
        component="main"
        style={{
          flex: 1,
          minHeight: 0,
          display: 'flex',
          flexDirection: wide ? 'row' : 'column',
          overflow: wide ? 'hidden' : 'auto',
        }}
      >
        {editorPane}
        {sidePane}
      </Box>
    </Box>
  );
}
