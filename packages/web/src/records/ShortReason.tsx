import { Anchor, Text, type TextProps, VisuallyHidden } from '@mantine/core';
import { type ReactNode, useId, useState } from 'react';
import { shortReason } from './transitions.tsx';

/**
 * A refusal said short ("Set an assignee first.") where room is scarce, whole for everyone: the
 * rest of its words are in the same element, out of sight but read by screen readers (and by a
 * button whose `aria-describedby` names `id`), on hover in its `title`, and on screen when "More"
 * is pressed (a disclosure, so a keyboard reaches them) or when `expanded` (a focused menu item).
 */
export function ShortReason({
  id,
  lead,
  reason,
  expanded = false,
  toggle = true,
  ...text
}: {
  /** The element's id, for an `aria-describedby`. */
  id?: string;
  /** What comes before the reason ("Assign: ", a row's title): part of the text, not of the reason. */
  lead?: ReactNode;
  reason: string;
  expanded?: boolean;
  /** A "More" button after it; false where the element itself takes focus (a menu item). */
  toggle?: boolean;
} & TextProps) {
  const [open, setOpen] = useState(false);
  const restId = useId();
  const short = shortReason(reason);
  const rest = reason.slice(short.length).trim();
  const shown = open || expanded;
  return (
    <>
      <Text id={id} title={reason} data-short-reason {...text}>
        {lead}
        {short}
        {rest !== '' &&
          (shown ? (
            <span id={restId}> {rest}</span>
          ) : (
            <VisuallyHidden component="span" id={restId} data-unseen>
              {` ${rest}`}
            </VisuallyHidden>
          ))}
      </Text>
      {rest !== '' && toggle && (
        <Anchor
          component="button"
          type="button"
          size="xs"
          aria-expanded={open}
          aria-controls={restId}
          aria-label={open ? 'Less of the reason' : 'More of the reason'}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Less' : 'More'}
        </Anchor>
      )}
    </>
  );
}
