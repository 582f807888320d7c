import { Anchor, Group, Image, Stack, Text } from '@mantine/core';
import type { FieldTypeOf } from '@ninepoint/spec';
import { sizeWords } from '@ninepoint/spec';
import { useEffect, useState } from 'react';
import { api } from '../../api/client.ts';

/** What the server tells of one file (`GET /api/files/{id}/about`): never its content. */
export interface FileAbout {
  id: string;
  name: string;
  size: number;
  mime: string;
  kind: string | null;
  image: boolean;
  removed: boolean;
}

/** A file field's value is its files' ids, joined by commas. */
export function fileIds(value: unknown): string[] {
  return typeof value === 'string' && value !== '' ? value.split(',') : [];
}

/** The address of a file's content (the server checks the record's read permission). */
export const fileUrl = (id: string) => `/api/files/${id}`;
/** The address of a raster image's thumbnail, `size` pixels on its longer side at most. */
export const thumbnailUrl = (id: string, size: number) => `/api/files/${id}/thumbnail?size=${size}`;

const abouts = new Map<string, Promise<FileAbout | null>>();

/** What the server tells of a file, fetched once a page; null when it is gone or not the user's to see. */
export function aboutFile(id: string): Promise<FileAbout | null> {
  let known = abouts.get(id);
  if (!known) {
    known = api<FileAbout>('GET', `${fileUrl(id)}/about`).then(
      (a) => a.body,
      () => null,
    );
    abouts.set(id, known);
  }
  return known;
}

/** Forgets what was fetched of files (after an upload replaced or removed some). */
export function forgetFiles(ids: readonly string[]): void {
  for (const id of ids) abouts.delete(id);
}

export function useFileAbout(id: string): FileAbout | null | undefined {
  const [about, setAbout] = useState<FileAbout | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void aboutFile(id).then((a) => {
      if (live) setAbout(a);
    });
    return () => {
      live = false;
    };
  }, [id]);
  return about;
}

/** A file's name (a download link), size and kind; a thumbnail for an image. */
export function FileLine({ id }: { id: string }) {
  const about = useFileAbout(id);
  if (about === undefined) return <Text size="sm">…</Text>;
  if (about === null)
    return (
      <Text size="sm" c="dimmed">
        File not available
      </Text>
    );
  // Replaced or removed since (history names it): what it was, without a link to content that is gone.
  if (about.removed)
    return (
      <Text size="sm" c="dimmed">
        <Text span td="line-through" inherit>
          {about.name}
        </Text>{' '}
        ({sizeWords(about.size)}
        {about.kind ? `, ${about.kind}` : ''}, no longer kept)
      </Text>
    );
  return (
    <Group gap="xs" wrap="nowrap">
      {about.image ? <Image src={thumbnailUrl(id, 96)} alt="" w={48} h={48} fit="cover" radius="sm" /> : null}
      <Anchor href={fileUrl(id)} download={about.name} size="sm" style={{ wordBreak: 'break-all' }}>
        {about.name}
      </Anchor>
      <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
        {sizeWords(about.size)}
        {about.kind ? `, ${about.kind}` : ''}
      </Text>
    </Group>
  );
}

/** A file field's files, each a line with its name, size and download link. */
export function FileList({ value }: { type: FieldTypeOf<'file'>; value: string }) {
  return (
    <Stack gap={4}>
      {fileIds(value).map((id) => (
        <FileLine key={id} id={id} />
      ))}
    </Stack>
  );
}

/** A list's or card's cell: thumbnails of images, the number of other files. */
export function FileThumbs({ type, value }: { type: FieldTypeOf<'file'>; value: string; size: 'list' | 'card' }) {
  const ids = fileIds(value);
  if (!type.image) {
    return (
      <Text span size="sm">
        {ids.length} {ids.length === 1 ? 'file' : 'files'}
      </Text>
    );
  }
  return (
    <Group gap={4} wrap="nowrap">
      {ids.slice(0, 3).map((id) => (
        <Image key={id} src={thumbnailUrl(id, 96)} alt="" w={40} h={40} fit="cover" radius="sm" loading="lazy" />
      ))}
      {ids.length > 3 ? (
        <Text span size="xs" c="dimmed">
          +{ids.length - 3}
        </Text>
      ) : null}
    </Group>
  );
}
