// The action menu (`a`), drawn with ink-select-input, the design's list
// component. Its keys stay in the app reducer (one state, keys in order): the
// SelectInput is not focused and is re-mounted at the reducer's cursor, so it
// only draws. Disabled entries are greyed with their reason.
import { Box, Text } from 'ink';
import SelectInput from 'ink-select-input';
import React from 'react';
import type { MenuItem } from '../../src/view/menu/action-menu.js';
import { fit, sanitizeInline, truncate } from '../../src/view/text/sanitize.js';
import { useTone } from '../app/theme.js';
import { MENU_REASON_LINES } from '../../src/view/menu/menu-height.js';
import { wrapText } from '../../src/view/text/text-wrap.js';

interface Entry {
  label: string;
  value: number;
  item: MenuItem;
  width: number;
}

/** SelectInput spreads each entry into its item component. */
function EntryView({ item, width, isSelected }: Entry & { isSelected?: boolean }): React.JSX.Element {
  const text = `${fit(item.key, 6)} ${item.label}`;
  if (item.disabled) {
    return (
      <Text dimColor wrap="truncate-end">
        {truncate(`${text}  (${sanitizeInline(item.disabled)})`, width)}
      </Text>
    );
  }
  return (
    <Text bold={isSelected} wrap="truncate-end">
      {truncate(text, width)}
    </Text>
  );
}

const why = (item: MenuItem | undefined): string => (!item ? '' : item.disabled ? `${item.key}: ${item.disabled}` : `${item.key}: ${item.help}`);

export function ActionMenu(props: { items: MenuItem[]; cursor: number; title: string; width: number; height: number }): React.JSX.Element {
  const tone = useTone();
  const inner = Math.max(10, props.width - 6);
  const entries: Entry[] = props.items.map((item, value) => ({ label: item.label, value, item, width: inner }));
  const cursor = Math.min(props.cursor, Math.max(0, entries.length - 1));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={tone('blue')} width={props.width} height={props.height} paddingX={1} overflow="hidden">
      <Text bold wrap="truncate-end">
        {truncate(`${props.title} · Enter run · a key runs its entry · Esc close`, Math.max(10, props.width - 4))}
      </Text>
      <SelectInput
        key={cursor}
        items={entries}
        initialIndex={cursor}
        isFocused={false}
        limit={Math.max(1, props.height - 3 - MENU_REASON_LINES)}
        itemComponent={EntryView as unknown as React.FC<{ isSelected?: boolean; label: string }>}
      />
      {/* the highlighted entry's reason in full (the row above may cut it), or what it does */}
      {wrapText(sanitizeInline(why(props.items[cursor])), Math.max(10, props.width - 4), MENU_REASON_LINES).map((l, i) => (
        <Text key={`why${i}`} dimColor={!props.items[cursor]?.disabled} color={props.items[cursor]?.disabled ? tone('yellow') : undefined} wrap="truncate-end">
          {l}
        </Text>
      ))}
    </Box>
  );
}
