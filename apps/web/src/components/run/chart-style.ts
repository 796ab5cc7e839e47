/** Shared look of the run page's charts, so the three plots line up and read as one figure. */
export const CHART_HEIGHT = 290;
/** The top margin holds the knee's tag above the plot, so the tag never covers a point. */
export const CHART_MARGIN = { top: 26, right: 18, bottom: 22, left: 14 };
export const AXIS_TICK = { fontSize: 11, fill: '#5a6472' };
export const AXIS_LINE = { stroke: '#c5ccd6' };
export const GRID_STROKE = '#e9ecf0';
export const AXIS_LABEL_STYLE = { fontSize: 12, fill: '#3d4754', fontWeight: 500 };
export const Y_AXIS_WIDTH = 64;
