# Largest eigenvalue of white Wishart matrices, centred and scaled, vs the Tracy-Widom densities.
# Usage: gnuplot -e "csv='results/spectra_tw_wishart.csv'; png='results/spectra_tw_wishart.png'" plots/spectra_tw_wishart.gp
# Columns are selected by name (the CSV header), so a reordered CSV still plots right.
if (!exists("csv")) csv = 'results/spectra_tw_wishart.csv'
if (!exists("png")) png = 'results/spectra_tw_wishart.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
# The same figure as PNG and, beside it, SVG (for papers).
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1400,600 enhanced font ",11"
  } else {
    set terminal png size 1400,600
  }
  set output png
} else {
  set terminal svg size 1400,600 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title sprintf("Largest eigenvalue of white Wishart matrices vs Tracy-Widom; %s", trials_text)
set grid
set style fill solid 0.35 noborder
set xlabel "(l_1 - mu_{np}) / sigma_{np}"
set ylabel "density"
do for [b = 1:2] {
  ks = system(sprintf("awk -F, '/^#/ {next} !seen++ {for (i = 1; i <= NF; i++) c[$i] = i; next} $c[\"beta\"] == %d {print $c[\"ks_distance\"], $c[\"ks_p_value\"], $c[\"n\"], $c[\"p\"]; exit}' '%s'", b, csv))
  set title sprintf("beta = %d (%s), n = %s, p = %s: KS distance %.4f, p-value %.3f", b, b == 1 ? "real" : "complex", \
                    word(ks, 3), word(ks, 4), word(ks, 1) + 0, word(ks, 2) + 0)
  plot csv using "s":(column("beta") == b ? column("empirical_density") : 1/0) with boxes lc rgb "#1f77b4" title "histogram", \
       csv using "s":(column("beta") == b ? column("limit_density") : 1/0) with lines lw 2 lc rgb "#d62728" title sprintf("TW%d density", b)
}
unset multiplot
}
