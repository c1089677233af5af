import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';

/** One line or bar set of a chart, named in its key; `tone` is a class of styles.css' chart colours. */
export interface ChartSeries {
  label: string;
  tone: SeriesTone;
  /** Drawn dashed (a second measure of the same arm). */
  dashed?: boolean;
}

/** Two tones for the series compared (arms, measures), and a dark one for a reference line. */
export type SeriesTone = 'tone-1' | 'tone-2' | 'tone-3';

interface ChartProps {
  /** Says what the chart shows to assistive technology, which reads the table beside it for values. */
  summary: string;
  series: ChartSeries[];
  data: uPlot.AlignedData;
  /**
   * uPlot's options for a given width in CSS pixels, in the console's colours; `library` is uPlot
   * itself (its path builders and time zones), loaded with the first chart.
   */
  options: (width: number, palette: Palette, library: typeof uPlot) => Omit<uPlot.Options, 'width'>;
}

/** The stylesheet's colours, for the canvas: one per series (as `series` lists them), and the axes'. */
export interface Palette {
  series: string[];
  axis: Pick<uPlot.Axis, 'stroke' | 'grid' | 'ticks' | 'font'>;
}

function paletteOf(element: HTMLElement, series: ChartSeries[]): Palette {
  const style = getComputedStyle(element);
  const colour = (name: string) => style.getPropertyValue(`--${name}`).trim();
  return {
    series: series.map((item) => colour(item.tone)),
    axis: {
      stroke: colour('muted'),
      grid: { stroke: colour('line'), width: 1 },
      ticks: { stroke: colour('line'), width: 1 },
      font: `12px ${style.fontFamily}`,
    },
  };
}

/**
 * A uPlot chart that fills its container's width and follows it, with an HTML key. uPlot draws on a
 * canvas and sets its elements' sizes through the CSSOM, which the CSP allows; its stylesheet is
 * bundled. Colours come from the stylesheet (`--tone-1`, `--muted`…), so the key and the canvas agree.
 */
export function Chart({ summary, series, data, options }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry?.contentRect.width ?? 0)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const element = box.current;
    if (!element || width === 0) return;
    let plot: uPlot | undefined;
    let gone = false;
    // uPlot is fetched with the first chart, so that views without one load less.
    void import('uplot').then(({ default: UPlot }) => {
      if (gone) return;
      // The key and the table beside the chart give its values, so uPlot's own legend and cursor are off.
      plot = new UPlot(
        {
          legend: { show: false },
          cursor: { show: false },
          ...options(width, paletteOf(element, series), UPlot),
          width,
        },
        data,
        element,
      );
    });
    return () => {
      gone = true;
      plot?.destroy();
    };
  }, [width, data]);

  return (
    <figure class="chart">
      <div class="chart-canvas" ref={box} role="img" aria-label={summary} />
      <figcaption>
        <ul class="chart-key">
          {series.map((item) => (
            <li key={item.label}>
              <span class={`chart-swatch ${item.tone}${item.dashed ? ' dashed' : ''}`} aria-hidden="true" />
              {item.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

/** Tick steps for an axis of counts: whole numbers only (no "0.5 sessions"). */
const WHOLE_STEPS = [1, 2, 5].flatMap((step) =>
  [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7].map((power) => step * power),
);

/** An axis of counts: whole-number ticks, written in the reader's locale. */
export const COUNT_AXIS: Pick<uPlot.Axis, 'incrs' | 'values'> = {
  incrs: WHOLE_STEPS.sort((a, b) => a - b),
  values: (_plot, splits) => splits.map((value) => value.toLocaleString()),
};
