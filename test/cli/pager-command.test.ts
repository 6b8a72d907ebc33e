import { describe, expect, it } from 'vitest';
import { pagerCommand } from '../../src/cli/pager-command.js';

describe('the pager command', () => {
  it('$PAGER: default less -R, quoted arguments', () => {
    expect(pagerCommand({})).toEqual({ command: 'less', args: ['-R'] });
    expect(pagerCommand({ PAGER: '  ' })).toEqual({ command: 'less', args: ['-R'] });
    expect(pagerCommand({ PAGER: 'more' })).toEqual({ command: 'more', args: [] });
    expect(pagerCommand({ PAGER: `bat --style "plain,numbers" -l 'a b'` })).toEqual({ command: 'bat', args: ['--style', 'plain,numbers', '-l', 'a b'] });
  });
});
