import { ActionIcon, Box, Group, Input, Stack, Text } from '@mantine/core';
import { FILE_FORMATS, type FieldTypeOf, sizeWords } from '@ninepoint/spec';
import { type DragEvent, useContext, useId, useRef, useState } from 'react';
import { FileLine, fileIds } from './FileList.tsx';
import { PendingFilesContext } from './pending-files.ts';

interface FileFieldProps {
  id: string;
  /** The field's name: the files picked are sent under it. */
  name: string;
  label: string;
  description?: string | undefined;
  required: boolean;
  disabled?: boolean | undefined;
  error?: string | undefined;
  type: FieldTypeOf<'file'>;
  /** The ids the record keeps (joined by commas); removing one sends the rest. */
  value: string;
  onChange: (value: string) => void;
}

/** What the file picker offers: the field's kinds, or images for an image field (the server decides by the bytes). */
function accept(type: FieldTypeOf<'file'>): string | undefined {
  if (type.kinds.length === 0) return type.image ? 'image/*' : undefined;
  return type.kinds.map((k) => FILE_FORMATS[k]?.mime ?? '').join(',');
}

/**
 * A file field in a form: the files the record keeps (each with a remove button), and a drop zone
 * (or the phone's camera, for an image field) whose picks are sent with the form.
 */
export function FileField({
  id,
  name,
  label,
  description,
  required,
  disabled,
  error,
  type,
  value,
  onChange,
}: FileFieldProps) {
  const pending = useContext(PendingFilesContext);
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [, rerender] = useState(0);
  const hintId = useId();
  const kept = fileIds(value);
  const picked = pending?.get(name) ?? [];
  const room = type.maxFiles - kept.length;
  const add = (files: readonly File[]) => {
    if (!pending) return;
    const next = type.maxFiles === 1 ? files.slice(0, 1) : [...picked, ...files].slice(0, Math.max(room, 0));
    // A single file replaces the one kept (a form that only adds sends the new one; the server replaces it).
    if (type.maxFiles === 1 && next.length > 0 && kept.length > 0 && !pending.addOnly) onChange('');
    pending.set(name, next);
    rerender((n) => n + 1);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    if (!disabled) add([...event.dataTransfer.files]);
  };
  const limits = `${type.kinds.length > 0 ? `${type.kinds.join(', ')}; ` : ''}at most ${sizeWords(type.maxBytes)}${
    type.maxFiles > 1 ? ` each, ${type.maxFiles} files` : ''
  }`;
  return (
    <Input.Wrapper label={label} description={description} required={required} error={error} id={id}>
      <Stack gap={6} mt={4}>
        {kept.map((fileId) => (
          <Group key={fileId} gap="xs" wrap="nowrap" justify="space-between">
            <FileLine id={fileId} />
            {pending?.addOnly ? null : (
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label="Remove file"
                disabled={disabled}
                onClick={() => onChange(kept.filter((k) => k !== fileId).join(','))}
              >
                ×
              </ActionIcon>
            )}
          </Group>
        ))}
        {picked.map((file, i) => (
          <Group key={`${file.name}-${file.size}-${file.lastModified}`} gap="xs" wrap="nowrap" justify="space-between">
            <Text size="sm" style={{ wordBreak: 'break-all' }}>
              {file.name}{' '}
              <Text span size="xs" c="dimmed">
                {sizeWords(file.size)}, to upload
              </Text>
            </Text>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Do not upload ${file.name}`}
              onClick={() => {
                pending?.set(
                  name,
                  picked.filter((_, j) => j !== i),
                );
                rerender((n) => n + 1);
              }}
            >
              ×
            </ActionIcon>
          </Group>
        ))}
        {pending && (type.maxFiles === 1 || room > picked.length) ? (
          <Box
            role="button"
            tabIndex={0}
            aria-describedby={hintId}
            data-testid={`drop-${id}`}
            onClick={() => input.current?.click()}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') input.current?.click();
            }}
            onDragOver={(e) => {
              e.preventDefault();
              setOver(true);
            }}
            onDragLeave={() => setOver(false)}
            onDrop={drop}
            style={{
              border: `1px dashed var(--mantine-color-${over ? 'blue-6' : 'gray-5'})`,
              borderRadius: 'var(--mantine-radius-sm)',
              padding: '12px',
              cursor: disabled ? 'not-allowed' : 'pointer',
              textAlign: 'center',
            }}
          >
            <Text size="sm">
              {kept.length > 0 && type.maxFiles === 1 ? 'Drop a file to replace it' : 'Drop files here or choose'}
            </Text>
            <Text size="xs" c="dimmed" id={hintId}>
              {limits}
              {type.image ? ' · on a phone, take a photo' : ''}
            </Text>
            <input
              ref={input}
              type="file"
              hidden
              id={id}
              disabled={disabled}
              multiple={type.maxFiles > 1}
              accept={accept(type)}
              onChange={(e) => {
                add([...(e.currentTarget.files ?? [])]);
                e.currentTarget.value = '';
              }}
            />
          </Box>
        ) : null}
      </Stack>
    </Input.Wrapper>
  );
}
