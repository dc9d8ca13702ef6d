import { h } from './dom.js';
import { t } from './i18n.js';

export interface Lines {
  query: Array<[number, number]>;
  candidate: Array<[number, number]>;
  inliers: number;
}

function load(src: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = reject;
    img.src = src;
  });
}

/**
 * The query photo and the candidate's photo side by side, with a line between each pair of
 * matched keypoints (coordinates are shares of each photo's width and height): the owner sees
 * which marks of the coat made the match, as Wildbook shows it.
 */
export function matchLinesCanvas(querySrc: string, candidateSrc: string, lines: Lines | null): HTMLElement {
  const canvas = h('canvas', {
    class: 'match-lines',
    width: 800,
    height: 400,
    role: 'img',
    'aria-label': t('match_points', { n: lines?.inliers ?? 0 }),
  });
  const caption = h('figcaption', {}, t('match_points', { n: lines?.inliers ?? 0 }));
  void Promise.all([load(querySrc), load(candidateSrc)])
    .then(([q, c]) => {
      const H = 400;
      const wq = Math.round((q.naturalWidth / q.naturalHeight) * H);
      const wc = Math.round((c.naturalWidth / c.naturalHeight) * H);
      const gap = 8;
      canvas.width = wq + gap + wc;
      canvas.height = H;
      const g = canvas.getContext('2d');
      if (!g) return;
      g.fillStyle = '#fff';
      g.fillRect(0, 0, canvas.width, H);
      g.drawImage(q, 0, 0, wq, H);
      g.drawImage(c, wq + gap, 0, wc, H);
      if (!lines) return;
      g.lineWidth = 2;
      lines.query.forEach(([x, y], i) => {
        const [x2, y2] = lines.candidate[i]!;
        g.strokeStyle = `hsl(${(i * 47) % 360} 90% 50%)`;
        g.beginPath();
        g.moveTo(x * wq, y * H);
        g.lineTo(wq + gap + x2 * wc, y2 * H);
        g.stroke();
      });
    })
    .catch(() => undefined);
  return h('figure', { class: 'lines' }, canvas, caption);
}
