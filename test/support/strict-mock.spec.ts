import { describe, expect, it, vi } from 'vitest';
import { strictMock } from './strict-mock.js';

interface Port {
  read(id: string): Promise<string>;
  write(id: string): Promise<void>;
  readonly kind: string;
}

describe('strictMock', () => {
  it('answers the members it was given', async () => {
    const read = vi.fn(async (id: string) => `row ${id}`);
    const port = strictMock<Port>({ read, kind: 'test' });
    expect(await port.read('a')).toBe('row a');
    expect(port.kind).toBe('test');
    expect(read).toHaveBeenCalledWith('a');
  });

  it('throws when a member the test did not give is called, naming it', () => {
    const port = strictMock<Port>({}, 'port');
    const write = port.write;
    expect(() => write('a')).toThrow('port: unexpected call of .write()');
  });

  it('can be awaited, compared and printed without tripping', async () => {
    const port = strictMock<Port>({});
    expect(await Promise.resolve(port)).toBe(port);
    const seen = vi.fn();
    seen(port);
    expect(seen).toHaveBeenCalledWith(port);
    expect(String(Object.prototype.toString.call(port))).toBe('[object Object]');
  });
});
