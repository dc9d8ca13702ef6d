import { describe, expect, it } from 'vitest';
import { iou } from './detector.js';
import { decodeImage } from './intake.js';
import { settingsFor } from './settings.js';
import { isolateSubject, NoSubjectError } from './subject.js';
import { ANIMAL_BOUNDS, animalScene } from './testing/animal-scene.js';

describe('subject isolation', () => {
  it('crops the detected animal with its margin and reports the box (crop on)', async () => {
    const img = await decodeImage(await animalScene({ coat: 4, shot: 1, dx: -30 }));
    const { image, subject } = await isolateSubject(img, settingsFor('animal', { subject: 'crop' }));
    expect(subject).not.toBeNull();
    expect(iou(subject!.box, { ...ANIMAL_BOUNDS, x: ANIMAL_BOUNDS.x - 30 })).toBeGreaterThan(0.5);
    expect(image.width).toBeLessThan(img.width);
    // 10% margin on each side, clamped to the photo.
    expect(image.width).toBeGreaterThanOrEqual(Math.min(img.width, Math.floor(subject!.box.w * 1.2) - 1));
    expect(image.rgb.length).toBe(image.width * image.height * 3);
  }, 60_000);

  it('describes the whole photo with crop off, yet still finds and reports the animal when one is required', async () => {
    const img = await decodeImage(await animalScene({ coat: 4 }));
    const whole = await isolateSubject(img, settingsFor('animal', { subject: 'off' }), {}, () =>
      Promise.reject(new Error('detector must not load')),
    );
    expect(whole).toEqual({ image: img, subject: null });
    const gated = await isolateSubject(img, settingsFor('animal', { subject: 'off' }), { require: true });
    expect(gated.image).toBe(img);
    expect(gated.subject?.label).toBeTruthy();
  }, 60_000);

  it('refuses a required subject in an empty field, and uses a box the caller chose as is', async () => {
    const empty = await decodeImage(await animalScene({ coat: 4, empty: true }));
    await expect(isolateSubject(empty, settingsFor('animal'), { require: true })).rejects.toBeInstanceOf(NoSubjectError);
    const box = { x: 10, y: 20, w: 100, h: 80 };
    const chosen = await isolateSubject(empty, settingsFor('animal', { subject: 'crop', subjectMargin: 0 }), { box });
    expect(chosen.subject).toEqual({ box, score: null, label: null, cocoClass: null });
    expect([chosen.image.width, chosen.image.height]).toEqual([100, 80]);
  }, 60_000);
});
