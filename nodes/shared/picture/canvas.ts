import { drawable, GLYPH_ADVANCE, GLYPH_ASCENT, GLYPH_WIDTH, glyphRows } from './font';
import type { IndexedImage } from './png';

/*
 * A canvas of palette indices (one byte a pixel): rectangles, lines and text, nothing else, every shape on whole
 * pixels and clipped to the canvas. What a colour looks like is the palette's, chosen when the PNG is written
 * (png.ts), so one drawing serves a light and a dark picture.
 */

export interface TextStyle {
	/** Pixels per font pixel (a whole number; 2 by default). */
	scale?: number;
	/** Drawn twice, one pixel apart. */
	bold?: boolean;
	/** Where `x` is: the text's left (default), centre or right. */
	align?: 'left' | 'center' | 'right';
}

export class Canvas implements IndexedImage {
	readonly pixels: Uint8Array;

	constructor(
		readonly width: number,
		readonly height: number,
		background = 0,
	) {
		this.pixels = new Uint8Array(width * height).fill(background);
	}

	rect(x: number, y: number, w: number, h: number, color: number): void {
		const x0 = Math.max(0, Math.round(x));
		const y0 = Math.max(0, Math.round(y));
		const x1 = Math.min(this.width, Math.round(x + w));
		const y1 = Math.min(this.height, Math.round(y + h));
		for (let row = y0; row < y1; row++) this.pixels.fill(color, row * this.width + x0, row * this.width + Math.max(x0, x1));
	}

	/** The outline of a rectangle, `thickness` pixels inside it. */
	frame(x: number, y: number, w: number, h: number, color: number, thickness = 1): void {
		this.rect(x, y, w, thickness, color);
		this.rect(x, y + h - thickness, w, thickness, color);
		this.rect(x, y, thickness, h, color);
		this.rect(x + w - thickness, y, thickness, h, color);
	}

	/** A straight line `thickness` pixels wide, from one point to another (each point stamped as a square). */
	line(x0: number, y0: number, x1: number, y1: number, color: number, thickness = 2): void {
		const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
		const offset = Math.floor(thickness / 2);
		for (let i = 0; i <= steps; i++) {
			const x = Math.round(x0 + ((x1 - x0) * i) / steps);
			const y = Math.round(y0 + ((y1 - y0) * i) / steps);
			this.rect(x - offset, y - offset, thickness, thickness, color);
		}
	}

	/** A horizontal dashed line. */
	dashes(x0: number, x1: number, y: number, color: number, thickness = 2, dash = 8, gap = 5): void {
		for (let x = x0; x < x1; x += dash + gap) this.rect(x, y - Math.floor(thickness / 2), Math.min(dash, x1 - x), thickness, color);
	}

	/** How wide `text` is drawn at `scale`. */
	static textWidth(text: string, scale = 2): number {
		const length = [...drawable(text)].length;
		return length === 0 ? 0 : (length * GLYPH_ADVANCE - (GLYPH_ADVANCE - GLYPH_WIDTH)) * scale;
	}

	/** `text` cut to `width` pixels at `scale`, ending in "..." when it was cut. */
	static fit(text: string, width: number, scale = 2): string {
		const chars = [...drawable(text)];
		if (Canvas.textWidth(text, scale) <= width) return chars.join('');
		const room = Math.max(0, Math.floor((width / scale + (GLYPH_ADVANCE - GLYPH_WIDTH)) / GLYPH_ADVANCE) - 3);
		return `${chars.slice(0, room).join('').trimEnd()}...`;
	}

	/** Draws `text` with its baseline at `y` (descenders below it); returns its width. */
	text(x: number, y: number, text: string, color: number, style: TextStyle = {}): number {
		const scale = style.scale ?? 2;
		const width = Canvas.textWidth(text, scale);
		let left = style.align === 'right' ? x - width : style.align === 'center' ? x - Math.round(width / 2) : x;
		const top = y - GLYPH_ASCENT * scale;
		for (const char of drawable(text)) {
			glyphRows(char).forEach((mask, row) => {
				for (let column = 0; column < GLYPH_WIDTH; column++) {
					if (!(mask & (1 << (GLYPH_WIDTH - 1 - column)))) continue;
					const px = left + column * scale;
					const py = top + row * scale;
					this.rect(px, py, scale + (style.bold ? 1 : 0), scale, color);
				}
			});
			left += GLYPH_ADVANCE * scale;
		}
		return width;
	}
}
