//! The bar chart of the ratios `scoped`/peer, drawn with plotters' bitmap
//! backend and an embedded font (no system libraries).

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::results::{Row, TARGET_RATIO};

const WIDTH: u32 = 1000;
const BAR: i32 = 22;
const GAP: i32 = 6;
const TOP: i32 = 60;
const LEFT: i32 = 330;
const RIGHT: i32 = 90;
const BOTTOM: i32 = 50;

/// Draws one bar per row, its ratio `scoped`/peer, into the PNG at `path`.
pub(crate) fn draw(rows: &[Row], path: &Path) -> Result<(), String> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "the embedded font is invalid".to_string())?;
    let height = TOP + rows.len() as i32 * (BAR + GAP) + BOTTOM;
    let root = BitMapBackend::new(path, (WIDTH, height as u32)).into_drawing_area();
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    root.fill(&WHITE).map_err(e)?;

    let max_ratio = rows.iter().map(|r| r.ratio).fold(1.5f64, f64::max);
    let x_max = (max_ratio * 2.0).ceil() / 2.0;
    let plot_width = (WIDTH as i32 - LEFT - RIGHT) as f64;
    let x_of = |ratio: f64| LEFT + (ratio.min(x_max) / x_max * plot_width) as i32;
    let font = |size: f64| ("sans-serif", size).into_font();

    root.draw(&Text::new(
        "scoped / hand-written rayon: median time ratio (lower is better)",
        (LEFT - 300, 15),
        font(20.0).color(&BLACK),
    ))
    .map_err(e)?;
    let one_thread = RGBColor(66, 120, 200);
    let all_threads = RGBColor(230, 140, 40);
    let max_threads = rows.iter().map(|r| r.threads).max().unwrap_or(1);
    for (i, (label, color)) in [
        ("1 thread".to_string(), one_thread),
        (format!("{max_threads} threads"), all_threads),
    ]
    .into_iter()
    .enumerate()
    {
        let x = LEFT + 160 * i as i32;
        root.draw(&Rectangle::new([(x, 40), (x + 14, 52)], color.filled()))
            .map_err(e)?;
        root.draw(&Text::new(label, (x + 20, 38), font(15.0).color(&BLACK)))
            .map_err(e)?;
    }

    let bottom = TOP + rows.len() as i32 * (BAR + GAP);
    for (i, row) in rows.iter().enumerate() {
        let y = TOP + i as i32 * (BAR + GAP);
        let color = if row.threads == 1 {
            one_thread
        } else {
            all_threads
        };
        root.draw(&Rectangle::new(
            [(LEFT, y), (x_of(row.ratio), y + BAR)],
            color.filled(),
        ))
        .map_err(e)?;
        let label = format!("{} · {} · {} thr", row.kernel, row.variant, row.threads);
        let right = font(14.0)
            .color(&BLACK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        root.draw(&Text::new(label, (LEFT - 8, y + BAR / 2), right))
            .map_err(e)?;
        let left = font(14.0)
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        // Right of the bar, or of the target line if the bar ends
        // before it, so that no line crosses the number.
        root.draw(&Text::new(
            format!("{:.2}", row.ratio),
            (x_of(row.ratio.max(TARGET_RATIO)) + 6, y + BAR / 2),
            left,
        ))
        .map_err(e)?;
    }

    // Axis with ticks every 0.5 (or wider for a long axis), and the
    // lines at 1 and at the target.
    root.draw(&PathElement::new(
        vec![(LEFT, bottom), (LEFT + plot_width as i32, bottom)],
        BLACK,
    ))
    .map_err(e)?;
    let step = match x_max {
        m if m <= 4.0 => 0.5,
        m if m <= 10.0 => 1.0,
        _ => 2.0,
    };
    let mut tick = 0.0;
    while tick <= x_max + 1e-9 {
        let x = x_of(tick);
        root.draw(&PathElement::new(vec![(x, bottom), (x, bottom + 5)], BLACK))
            .map_err(e)?;
        let centred = font(13.0)
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        root.draw(&Text::new(format!("{tick:.1}"), (x, bottom + 8), centred))
            .map_err(e)?;
        tick += step;
    }
    for (ratio, style) in [
        (1.0, BLACK.stroke_width(2)),
        (TARGET_RATIO, RED.stroke_width(1)),
    ] {
        let x = x_of(ratio);
        root.draw(&PathElement::new(vec![(x, TOP - 4), (x, bottom)], style))
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(())
}
