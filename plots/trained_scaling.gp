# Scaling laws on teacher-student data (scaling paper, Theorem 4.3, Sec. 5) and routing usage.
# Panels 1-3: normalized test MSE vs N_act (axis active), D (data) and E (experts), log-log, +- s.e.,
# with the fitted power law (solid) and the predicted slope through the first point (dashed).
# Panel 4: effective number of top-k masks (exp entropy) of the trained and the initial router vs C(E, k).
# Usage: gnuplot -e "csv='results/trained_scaling.csv'; png='results/trained_scaling.png'" plots/trained_scaling.gp
if (!exists("csv")) csv = 'results/trained_scaling.csv'
if (!exists("png")) png = 'results/trained_scaling.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
# A value of `name` on the first row of axis `ax`.
axis_value(ax, name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) {if ($i == \"axis\") a = i; if ($i == \"%s\") k = i}; next} $a == \"%s\" {print $k; exit}'", csv, name, ax))
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1600,1000 enhanced font ",11"
  } else {
    set terminal png size 1600,1000
  }
  set output png
} else {
  set terminal svg size 1600,1000 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set multiplot layout 2, 2 title sprintf("Trained MoE students on a random MoE teacher; %s seeds", trials_text)
set grid
set logscale xy
set key top right box opaque
do for [ax in "active data experts"] {
  a = axis_value(ax, "fitted_exponent") + 0.0
  se = axis_value(ax, "fitted_exponent_se_scaled") + 0.0
  pr = axis_value(ax, "predicted_exponent") + 0.0
  x0 = axis_value(ax, "x") + 0.0
  y0 = axis_value(ax, "nmse_mean") + 0.0
  set xlabel (ax eq "active" ? "active parameters N_{act}" : (ax eq "data" ? "training samples D" : "experts E"))
  set ylabel "normalized test MSE"
  set title sprintf("%s: fitted exponent %.3f +- %.3f, predicted %.3f", ax, a, se, pr)
  plot csv using (stringcolumn("axis") eq ax ? column("x") : 1/0):"nmse_mean":"nmse_std_error" with yerrorbars pt 7 lw 2 title "measured", \
       csv using (stringcolumn("axis") eq ax ? column("x") : 1/0):(y0 * (column("x") / x0) ** (-a)) with lines lw 2 title "fit", \
       csv using (stringcolumn("axis") eq ax ? column("x") : 1/0):(y0 * (column("x") / x0) ** (-pr)) with lines dt 2 lw 2 title "predicted slope"
}
unset logscale y
set logscale x
set xlabel "axis value (w, D or E)"
set ylabel "top-k masks on the test inputs"
set title "routing usage: exp(entropy) trained (solid) vs initial (dashed); C(E, k) (dotted)"
set logscale y
plot for [ax in "active data experts"] csv using (stringcolumn("axis") eq ax ? column("value") : 1/0):"effective_masks_trained_mean" with linespoints lw 2 title ax . " trained", \
     for [ax in "active data experts"] csv using (stringcolumn("axis") eq ax ? column("value") : 1/0):"effective_masks_init_mean" with linespoints dt 2 lw 1.5 title ax . " initial", \
     for [ax in "active data experts"] csv using (stringcolumn("axis") eq ax ? column("value") : 1/0):"all_masks" with lines dt 3 lw 1.5 title ax . " C(E, k)"
unset multiplot
unset logscale
}
