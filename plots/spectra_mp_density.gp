# Marchenko-Pastur density vs the pooled eigenvalue histogram of (1/N) X X', one panel per c.
# Usage: gnuplot -e "csv='results/spectra_mp_density.csv'; png='results/spectra_mp_density.png'" plots/spectra_mp_density.gp
# Columns are selected by name (the CSV header), so a reordered CSV still plots right.
if (!exists("csv")) csv = 'results/spectra_mp_density.csv'
if (!exists("png")) png = 'results/spectra_mp_density.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
# The same figure as PNG and, beside it, SVG (for papers).
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1500,900 enhanced font ",10"
  } else {
    set terminal png size 1500,900
  }
  set output png
} else {
  set terminal svg size 1500,900 enhanced font ",10" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
# The distinct values of c, in file order.
cs = system(sprintf("awk -F, '/^#/ {next} !seen++ {for (i = 1; i <= NF; i++) if ($i == \"c\") k = i; next} {print $k}' '%s' | uniq | tr '\\n' ' '", csv))
n = words(cs)
set multiplot layout 2, (n + 1) / 2 title sprintf("Marchenko-Pastur density (line) vs eigenvalue histogram of (1/N) X X' (bars); %s", trials_text)
set style fill solid 0.35 noborder
set grid
do for [i = 1:n] {
  c = word(cs, i) + 0.0
  set title sprintf("c = M/N = %g", c)
  set xlabel "eigenvalue x"
  set ylabel "density"
  plot csv using "x":(abs(column("c") - c) < 1e-12 ? column("empirical_density") : 1/0) with boxes lc rgb "#1f77b4" title "histogram", \
       csv using "x":(abs(column("c") - c) < 1e-12 ? column("limit_density") : 1/0) with lines lw 2 lc rgb "#d62728" title "MP density"
}
unset multiplot
}
