import { TextInput, type TextInputProps } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { useEffect, useRef, useState } from 'react';

/**
 * A text input that reports what was typed once the typing pauses (and at once on Enter or when
 * it loses focus), so a list is not asked for at every key. A value that `valid` refuses is
 * shown with `invalidMessage` and not reported. The value from outside (the address) wins when it
 * changes, as after the back button.
 */
export function DebouncedInput({
  value,
  onCommit,
  delay = 350,
  valid = () => true,
  invalidMessage,
  ...props
}: Omit<TextInputProps, 'value' | 'onChange' | 'error'> & {
  value: string;
  onCommit: (value: string) => void;
  delay?: number;
  valid?: (value: string) => boolean;
  invalidMessage?: string;
}) {
  const [text, setText] = useState(value);
  const committed = useRef(value);
  useEffect(() => {
    if (value !== committed.current) {
      committed.current = value;
      setText(value);
    }
  }, [value]);
  const commit = (next: string) => {
    if (next !== '' && !valid(next)) return;
    if (next === committed.current) return;
    committed.current = next;
    onCommit(next);
  };
  const debounced = useDebouncedCallback(commit, delay);
  const invalid = text !== '' && !valid(text);
  return (
    <TextInput
      {...props}
      value={text}
      error={invalid ? (invalidMessage ?? 'Not a valid value') : undefined}
      onChange={(event) => {
        setText(event.currentTarget.value);
        debounced(event.currentTarget.value);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Enter') {
          debounced.cancel();
          commit(text);
        }
      }}
      onBlur={() => {
        debounced.cancel();
        commit(text);
      }}
    />
  );
}
