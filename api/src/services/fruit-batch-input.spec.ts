import { describe, expect, it } from 'vitest';
import { batchFruit, fruitOf, type BatchItem } from './fruit-batch-input.js';

describe('which fruit a batch photo is a view of', () => {
  it('a folder of the archive names the fruit, nested folders whole', () => {
    expect(fruitOf('fruit-17/a.jpg')).toBe('fruit-17');
    expect(fruitOf('crate-3/fruit-17/a.jpg')).toBe('crate-3/fruit-17');
    // In a folder, the folder decides, not the file name.
    expect(fruitOf('crate-3/fruit-9__cam1.jpg')).toBe('crate-3');
  });

  it('outside a folder, the part of the file name before `__` names it', () => {
    expect(fruitOf('fruit-17__cam2.jpg')).toBe('fruit-17');
    expect(fruitOf('fruit-17__cam2__again.jpg')).toBe('fruit-17');
  });

  it('any other name is its own fruit, and an unsafe path names none', () => {
    for (const n of ['IMG_0042.jpg', '__proto__', '__x.jpg', 'fruit-17__', 'fruit_17_cam2.jpg', '../x.jpg', '/etc/evil.jpg', 'a/../b.jpg'])
      expect(fruitOf(n), n).toBeNull();
  });

  it('groups in order of first appearance across sources, keeps ungrouped photos apart, and refuses a fruit over the cap', () => {
    const item = (file_name: string, failed?: BatchItem['failed']): BatchItem =>
      failed ? { file_name, failed } : { file_name, bytes: Buffer.from(file_name) };
    const items = [
      item('fruit-1__a.jpg'),
      item('loose.jpg'),
      item('fruit-1__b.jpg'),
      item('../fruit-1__c.jpg', { reason_code: 'archive_entry_unsafe_name', reason_params: {} }),
      item('fruit-1/c.jpg'),
      ...['v1', 'v2', 'v3'].map((v) => item(`big/${v}.jpg`)),
    ];
    const fruit = batchFruit(items, 2);
    expect(fruit.map((f) => [f.name, f.grouped, f.views.map((v) => v.file_name)])).toEqual([
      ['fruit-1', true, ['fruit-1__a.jpg', 'fruit-1__b.jpg', 'fruit-1/c.jpg']],
      ['loose.jpg', false, ['loose.jpg']],
      ['../fruit-1__c.jpg', false, ['../fruit-1__c.jpg']],
      ['big', true, ['big/v1.jpg', 'big/v2.jpg', 'big/v3.jpg']],
    ]);
    expect(fruit[0]!.failed).toEqual({ reason_code: 'batch_fruit_too_many_views', reason_params: { fruit: 'fruit-1', got: 3, max: 2 } });
    expect(fruit[1]!.failed).toBeUndefined();
    expect(fruit[3]!.failed?.reason_code).toBe('batch_fruit_too_many_views');
  });
});
